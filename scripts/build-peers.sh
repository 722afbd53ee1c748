#!/usr/bin/env bash
# Builds the binaries the cluster tests and the SLA rehearsal run, from the Go module proxy, once per version:
#
#   kube-apiserver, kubectl, kube-controller-manager  (k8s.io/kubernetes)
#   etcd                                              (go.etcd.io/etcd/server/v3)
#   pulumi                                            (github.com/pulumi/pulumi/pkg/v3)
#   pulumi-resource-kubernetes                        (github.com/pulumi/pulumi-kubernetes/provider/v4)
#   prometheus-operator, prometheus                   (the SLA rehearsal's monitoring)
#
# and extracts the CRDs the cluster stack's objects need: the Prometheus operator's (shipped in
# its module) and Flux's HelmRelease and HelmRepository (generated from their API modules with
# controller-gen, as Flux generates them).
#
#   scripts/build-peers.sh [all|control-plane|sla|kube|etcd|pulumi|provider|crds|prometheus|operator]
#
# Everything goes under the user's cache directory, keyed by version, outside the clone, so that a
# new clone (a CI run) reuses what a previous run built: $DYNAMO_CONSTRUCTS_CACHE, else
# ${XDG_CACHE_HOME:-~/.cache}/dynamo-constructs. Go's own build and module caches are Go's defaults.
# Modules whose go.mod has replace directives cannot be `go install`ed; each is built from a small
# wrapper module written here, which requires it (and pins what its replace directives point at).
set -euo pipefail

K8S_VERSION=v1.36.3
ETCD_VERSION=v3.6.16
PULUMI_VERSION=v3.248.0
# the only version of the provider module the proxy serves: the v4.25.0 release's commit
PROVIDER_MODULE_VERSION=v4.0.0-20260115033456-f47bc2d6f199
PROVIDER_VERSION=4.25.0
# the prometheus-operator and Prometheus of the kube-prometheus-stack chart PrometheusStack pins
# (77.6.0: operator v0.85.0, Prometheus v3.5.0, whose Go module version is v0.305.0)
PROMETHEUS_OPERATOR_VERSION=v0.85.0
PROMETHEUS_VERSION=v3.5.0
PROMETHEUS_MODULE_VERSION=v0.305.0
HELM_CONTROLLER_API_VERSION=v1.6.5
SOURCE_CONTROLLER_API_VERSION=v1.9.6
KUSTOMIZE_CONTROLLER_API_VERSION=v1.9.6
CONTROLLER_TOOLS_VERSION=v0.23.0

CACHE="${DYNAMO_CONSTRUCTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dynamo-constructs}/real-k8s"
BIN="$CACHE/bin"
SRC="$CACHE/src"
CRDS="$CACHE/crds"
mkdir -p "$BIN" "$SRC" "$CRDS"
# Go 1.26 is what these machines have: versions above are the newest that build with it
export GOFLAGS="-buildvcs=false" CGO_ENABLED=0 GOTOOLCHAIN=local

log() { printf 'cluster build: %s\n' "$*" >&2; }
elapsed() { echo "$(( $(date +%s) - $1 ))s"; }
have() { [ -x "$BIN/$1" ] && [ -f "$BIN/$1.version" ] && [ "$(cat "$BIN/$1.version")" = "$2" ]; }
installed() { echo "$2" > "$BIN/$1.version"; }

# A wrapper module in $SRC/<name>: go.mod written by the caller, then `go mod tidy`.
wrapper() {
  local dir="$SRC/$1"
  rm -rf "$dir" && mkdir -p "$dir"
  echo "$dir"
}

gomod_of() {
  # the go.mod of a module version, as the proxy serves it
  go mod download -json "$1" | sed -n 's/^\s*"GoMod": "\(.*\)",\?$/\1/p'
}

dir_of() {
  go mod download -json "$1" | sed -n 's/^\s*"Dir": "\(.*\)",\?$/\1/p'
}

build_kube() {
  if have kube-apiserver "$K8S_VERSION" && have kubectl "$K8S_VERSION" && have kube-controller-manager "$K8S_VERSION"; then return; fi
  local start; start=$(date +%s)
  log "kube-apiserver, kubectl, kube-controller-manager $K8S_VERSION (cold: about 10 min on 2 cores)"
  local dir; dir=$(wrapper "kube-$K8S_VERSION")
  local staging_version="v0${K8S_VERSION#v1}"
  # k8s.io/kubernetes replaces its staging modules with ./staging/...: pin each to its published version
  local replaces
  replaces=$(sed -n 's#^\s*\(k8s\.io/[a-z0-9.-]*\) => \./staging/.*#\1#p' "$(gomod_of "k8s.io/kubernetes@$K8S_VERSION")" | sort -u |
    while read -r m; do
      if grep -q "^\s*$m v0.0.0" "$(gomod_of "k8s.io/kubernetes@$K8S_VERSION")"; then echo "	$m => $m $staging_version"; fi
    done)
  cat > "$dir/go.mod" <<EOF
module dynamoconstructs.test/kube

go 1.26.0

require k8s.io/kubernetes $K8S_VERSION

replace (
$replaces
)
EOF
  cat > "$dir/tools.go" <<'EOF'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
EOF
  (cd "$dir" && go mod tidy)
  local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2) -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION"
  for cmd in kube-apiserver kubectl kube-controller-manager; do
    log "  building $cmd"
    (cd "$dir" && nice -n 10 go build -trimpath -ldflags "$ldflags" -o "$BIN/$cmd" "k8s.io/kubernetes/cmd/$cmd")
    installed "$cmd" "$K8S_VERSION"
  done
  log "kube binaries built in $(elapsed "$start")"
}

build_etcd() {
  if have etcd "$ETCD_VERSION"; then return; fi
  local start; start=$(date +%s)
  log "etcd $ETCD_VERSION (cold: about 1 min)"
  local dir; dir=$(wrapper "etcd-$ETCD_VERSION")
  cat > "$dir/go.mod" <<EOF
module dynamoconstructs.test/etcd

go 1.26.0

require go.etcd.io/etcd/server/v3 $ETCD_VERSION

replace (
	go.etcd.io/etcd/api/v3 => go.etcd.io/etcd/api/v3 $ETCD_VERSION
	go.etcd.io/etcd/client/pkg/v3 => go.etcd.io/etcd/client/pkg/v3 $ETCD_VERSION
	go.etcd.io/etcd/client/v3 => go.etcd.io/etcd/client/v3 $ETCD_VERSION
	go.etcd.io/etcd/pkg/v3 => go.etcd.io/etcd/pkg/v3 $ETCD_VERSION
)
EOF
  cat > "$dir/tools.go" <<'EOF'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
EOF
  (cd "$dir" && go mod tidy && nice -n 10 go build -trimpath -ldflags "-s -w" -o "$BIN/etcd" go.etcd.io/etcd/server/v3)
  installed etcd "$ETCD_VERSION"
  log "etcd built in $(elapsed "$start")"
}

build_pulumi() {
  if have pulumi "$PULUMI_VERSION"; then return; fi
  local start; start=$(date +%s)
  log "pulumi CLI $PULUMI_VERSION (cold: about 8 min)"
  local dir; dir=$(wrapper "pulumi-$PULUMI_VERSION")
  # the replace directives of pkg/v3's own go.mod that point at other modules, kept
  local clipboard
  clipboard=$(sed -n 's#^\s*\(replace \)\?github.com/atotto/clipboard => \(.*\)$#\2#p' "$(gomod_of "github.com/pulumi/pulumi/pkg/v3@$PULUMI_VERSION")")
  cat > "$dir/go.mod" <<EOF
module dynamoconstructs.test/pulumi

go 1.26.0

require github.com/pulumi/pulumi/pkg/v3 $PULUMI_VERSION

replace (
	github.com/pulumi/pulumi/sdk/v3 => github.com/pulumi/pulumi/sdk/v3 $PULUMI_VERSION
	github.com/atotto/clipboard => $clipboard
)
EOF
  cat > "$dir/tools.go" <<'EOF'
//go:build tools

package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
EOF
  (cd "$dir" && go mod tidy && nice -n 10 go build -trimpath -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION" -o "$BIN/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
  installed pulumi "$PULUMI_VERSION"
  log "pulumi built in $(elapsed "$start")"
}

build_provider() {
  if have pulumi-resource-kubernetes "$PROVIDER_VERSION"; then return; fi
  local start; start=$(date +%s)
  log "pulumi-resource-kubernetes $PROVIDER_VERSION (cold: about 18 min; the slowest build)"
  local dir; dir=$(wrapper "provider-$PROVIDER_VERSION")
  local module="github.com/pulumi/pulumi-kubernetes/provider/v4"
  cat > "$dir/go.mod" <<EOF
module dynamoconstructs.test/provider

go 1.26.0

require $module $PROVIDER_MODULE_VERSION

replace github.com/pulumi/pulumi-kubernetes/sdk/v4 => github.com/pulumi/pulumi-kubernetes/sdk/v4 v$PROVIDER_VERSION
EOF
  # the command's package embeds schema-embed.json and terraform-mapping-embed.json, which the
  # provider's `go generate` writes (the schema with its version set); they are not in the module
  local src; src=$(dir_of "$module@$PROVIDER_MODULE_VERSION")
  mkdir -p "$dir/cmd/pulumi-resource-kubernetes"
  cp "$src/cmd/pulumi-resource-kubernetes/"*.go "$src/cmd/pulumi-resource-kubernetes/schema.json" "$src/cmd/pulumi-resource-kubernetes/terraform-mapping.json" "$dir/cmd/pulumi-resource-kubernetes/"
  chmod -R u+w "$dir/cmd"
  rm -f "$dir/cmd/pulumi-resource-kubernetes/"*_test.go "$dir/cmd/pulumi-resource-kubernetes/generate.go"
  python3 - "$dir/cmd/pulumi-resource-kubernetes" "$PROVIDER_VERSION" <<'EOF'
import json, shutil, sys
d, version = sys.argv[1], sys.argv[2]
schema = json.load(open(f"{d}/schema.json"))
schema["version"] = version
json.dump(schema, open(f"{d}/schema-embed.json", "w"))
shutil.copy(f"{d}/terraform-mapping.json", f"{d}/terraform-mapping-embed.json")
EOF
  (cd "$dir" && go mod tidy && nice -n 10 go build -trimpath -ldflags "-s -w -X $module/pkg/version.Version=$PROVIDER_VERSION" -o "$BIN/pulumi-resource-kubernetes" ./cmd/pulumi-resource-kubernetes)
  installed pulumi-resource-kubernetes "$PROVIDER_VERSION"
  log "provider built in $(elapsed "$start")"
}

build_prometheus() {
  if have prometheus "$PROMETHEUS_VERSION"; then return; fi
  local start; start=$(date +%s)
  log "prometheus $PROMETHEUS_VERSION (cold: about 25 min on 2 cores; without the web UI's assets: the HTTP API is what the tests use)"
  local dir; dir=$(wrapper "prometheus-$PROMETHEUS_VERSION")
  local module="github.com/prometheus/prometheus"
  # prometheus' go.mod replaces fsnotify: the wrapper keeps that replace
  local replaces
  replaces=$(sed -n 's#^replace \(.*\)$#\1#p' "$(gomod_of "$module@$PROMETHEUS_MODULE_VERSION")")
  cat > "$dir/go.mod" <<EOF
module dynamoconstructs.test/prometheus

go 1.26.0

require $module $PROMETHEUS_MODULE_VERSION

replace $replaces
EOF
  cat > "$dir/tools.go" <<'EOF'
//go:build tools

package tools

import _ "github.com/prometheus/prometheus/cmd/prometheus"
EOF
  (cd "$dir" && go mod tidy && nice -n 10 go build -trimpath -ldflags "-s -w -X github.com/prometheus/common/version.Version=${PROMETHEUS_VERSION#v}" -o "$BIN/prometheus" "$module/cmd/prometheus")
  installed prometheus "$PROMETHEUS_VERSION"
  log "prometheus built in $(elapsed "$start")"
}

build_operator() {
  if have prometheus-operator "$PROMETHEUS_OPERATOR_VERSION"; then return; fi
  local start; start=$(date +%s)
  log "prometheus-operator $PROMETHEUS_OPERATOR_VERSION (cold: about 5 min)"
  local dir; dir=$(wrapper "prometheus-operator-$PROMETHEUS_OPERATOR_VERSION")
  local module="github.com/prometheus-operator/prometheus-operator"
  # its go.mod replaces its two API modules with folders of its own: require their published versions
  cat > "$dir/go.mod" <<EOF
module dynamoconstructs.test/prometheusoperator

go 1.26.0

require (
	$module $PROMETHEUS_OPERATOR_VERSION
	$module/pkg/apis/monitoring $PROMETHEUS_OPERATOR_VERSION
	$module/pkg/client $PROMETHEUS_OPERATOR_VERSION
)
EOF
  cat > "$dir/tools.go" <<'EOF'
//go:build tools

package tools

import _ "github.com/prometheus-operator/prometheus-operator/cmd/operator"
EOF
  (cd "$dir" && go mod tidy && nice -n 10 go build -trimpath -ldflags "-s -w -X github.com/prometheus/common/version.Version=${PROMETHEUS_OPERATOR_VERSION#v}" -o "$BIN/prometheus-operator" "$module/cmd/operator")
  installed prometheus-operator "$PROMETHEUS_OPERATOR_VERSION"
  log "prometheus-operator built in $(elapsed "$start")"
}

extract_crds() {
  local stamp="$CRDS/.version"
  local want="$PROMETHEUS_OPERATOR_VERSION $HELM_CONTROLLER_API_VERSION $SOURCE_CONTROLLER_API_VERSION $KUSTOMIZE_CONTROLLER_API_VERSION $CONTROLLER_TOOLS_VERSION with-prometheuses-probes"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return; fi
  local start; start=$(date +%s)
  log "CRDs: prometheus-operator $PROMETHEUS_OPERATOR_VERSION, Flux helm-controller/api $HELM_CONTROLLER_API_VERSION, source-controller/api $SOURCE_CONTROLLER_API_VERSION and kustomize-controller/api $KUSTOMIZE_CONTROLLER_API_VERSION"
  rm -rf "$CRDS" && mkdir -p "$CRDS/prometheus-operator" "$CRDS/flux"
  local prom; prom=$(dir_of "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION")
  # the cluster stack's kinds, and what the operator's Prometheus controller waits for (the SLA rehearsal)
  for kind in podmonitors servicemonitors prometheusrules prometheuses probes; do
    cp "$prom/example/prometheus-operator-crd/monitoring.coreos.com_$kind.yaml" "$CRDS/prometheus-operator/"
  done
  local dir; dir=$(wrapper "flux-crds")
  cat > "$dir/go.mod" <<EOF
module dynamoconstructs.test/fluxcrds

go 1.26.0

require (
	github.com/fluxcd/helm-controller/api $HELM_CONTROLLER_API_VERSION
	github.com/fluxcd/source-controller/api $SOURCE_CONTROLLER_API_VERSION
	github.com/fluxcd/kustomize-controller/api $KUSTOMIZE_CONTROLLER_API_VERSION
	sigs.k8s.io/controller-tools $CONTROLLER_TOOLS_VERSION
)
EOF
  cat > "$dir/tools.go" <<'EOF'
//go:build tools

package tools

import (
	_ "github.com/fluxcd/helm-controller/api/v2"
	_ "github.com/fluxcd/source-controller/api/v1"
	_ "github.com/fluxcd/kustomize-controller/api/v1"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
EOF
  (cd "$dir" && go mod tidy && go build -o "$dir/controller-gen" sigs.k8s.io/controller-tools/cmd/controller-gen)
  (cd "$dir" && ./controller-gen crd paths=github.com/fluxcd/helm-controller/api/v2 paths=github.com/fluxcd/source-controller/api/v1 paths=github.com/fluxcd/kustomize-controller/api/v1 "output:crd:dir=$CRDS/flux")
  # the cluster stack's objects use HelmRelease (v2), HelmRepository (v1) and Kustomization (v1) only
  find "$CRDS/flux" -name '*.yaml' ! -name 'helm.toolkit.fluxcd.io_helmreleases.yaml' ! -name 'source.toolkit.fluxcd.io_helmrepositories.yaml' ! -name 'kustomize.toolkit.fluxcd.io_kustomizations.yaml' -delete
  echo "$want" > "$stamp"
  log "CRDs ready in $(elapsed "$start")"
}

what="${1:-all}"
case "$what" in
  kube) build_kube ;;
  etcd) build_etcd ;;
  pulumi) build_pulumi ;;
  provider) build_provider ;;
  crds) extract_crds ;;
  prometheus) build_prometheus ;;
  operator) build_operator ;;
  sla) build_etcd; build_kube; extract_crds; build_operator; build_prometheus ;;
  control-plane) build_etcd; build_kube; extract_crds ;;
  all) build_etcd; build_kube; extract_crds; build_pulumi; build_provider; build_operator; build_prometheus ;;
  path) echo "$CACHE" ;;
  *) echo "usage: $0 [all|control-plane|sla|kube|etcd|pulumi|provider|crds|prometheus|operator|path]" >&2; exit 2 ;;
esac
