import { PodSpec } from 'kubernetes-models/v1';
import type { IAffinity, ITopologySpreadConstraint } from 'kubernetes-models/v1';
import {
  Affinity,
  Backend,
  DEFAULT_DYNAMO_VERSION,
  disaggregatedGraphSpec,
  DisaggregatedDeploymentOptions,
  renderGraph,
  TopologySpreadConstraint,
} from '../../src';
import { crdErrors } from '../support/crd';
import { issuesOf } from './helpers';

// Where production pods go: affinity, priority and spreading on every component, in the pod spec
// of both API versions, and the 1.x graph's own Grove placement fields.

const MODEL = 'Qwen/Qwen3-0.6B';

const GPU_NODES: Affinity = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'nvidia.com/gpu.product', operator: 'In', values: ['NVIDIA-H100-80GB-HBM3'] }] }],
    },
  },
  podAntiAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { 'nvidia.com/dynamo-component-type': 'prefill' } } } },
    ],
  },
};
const ZONES: TopologySpreadConstraint[] = [
  { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'llm' } } },
];

// the library's types are the Kubernetes API's: a value of one is a value of the other
const asK8sAffinity: IAffinity = GPU_NODES as IAffinity;
const asK8sSpread: ITopologySpreadConstraint[] = ZONES as ITopologySpreadConstraint[];
void asK8sAffinity;
void asK8sSpread;

function options(version: string, extra: Partial<DisaggregatedDeploymentOptions> = {}): DisaggregatedDeploymentOptions {
  return {
    model: MODEL,
    backend: Backend.vllm(),
    dynamoVersion: version,
    priorityClassName: 'llm-serving',
    frontend: { topologySpreadConstraints: ZONES },
    prefill: { affinity: GPU_NODES, priorityClassName: 'llm-critical' },
    decode: { affinity: GPU_NODES, topologySpreadConstraints: ZONES },
    planner: { ttftMs: 200, itlMs: 20, affinity: { nodeAffinity: GPU_NODES.nodeAffinity } },
    ...extra,
  };
}

/** The pod spec of each component, by name, in either API version. */
function podSpecs(graph: any): Record<string, any> {
  if (graph.apiVersion === 'nvidia.com/v1beta1') {
    return Object.fromEntries(graph.spec.components.map((c: any) => [c.name, c.podTemplate.spec]));
  }
  return Object.fromEntries(Object.entries(graph.spec.services).map(([n, s]: [string, any]) => [n, s.extraPodSpec]));
}

function placementOf(spec: any) {
  return { affinity: spec.affinity, priorityClassName: spec.priorityClassName, topologySpreadConstraints: spec.topologySpreadConstraints };
}

describe.each([DEFAULT_DYNAMO_VERSION, '1.4.2', '0.9.0', '0.8.1'])('pod placement on Dynamo %s', (version) => {
  const render = () => renderGraph(disaggregatedGraphSpec('llm', 'serving', options(version)));

  test('each component gets its own affinity and spread, and the graph priority unless it sets one', () => {
    const pods = podSpecs(render().graph);
    expect(placementOf(pods.Frontend)).toEqual({ affinity: undefined, priorityClassName: 'llm-serving', topologySpreadConstraints: ZONES });
    expect(placementOf(pods.VllmPrefillWorker)).toEqual({ affinity: GPU_NODES, priorityClassName: 'llm-critical', topologySpreadConstraints: undefined });
    expect(placementOf(pods.VllmDecodeWorker)).toEqual({ affinity: GPU_NODES, priorityClassName: 'llm-serving', topologySpreadConstraints: ZONES });
    expect(placementOf(pods.Planner)).toEqual({ affinity: { nodeAffinity: GPU_NODES.nodeAffinity }, priorityClassName: 'llm-serving', topologySpreadConstraints: undefined });
  });

  test('the graph is valid against the release CRD and each pod spec against the Kubernetes API', () => {
    const r = render();
    const pods = podSpecs(r.graph);
    expect(crdErrors(r.graph)).toEqual([]);
    const invalid = Object.entries(pods).flatMap(([name, spec]) => {
      // a v1alpha1 pod's containers are the operator's to add: validate the pod fields rendered
      const { mainContainer: _main, ...pod } = spec;
      void _main;
      try {
        new PodSpec({ ...pod, containers: spec.containers ?? [{ name: 'main' }] }).validate();
        return [];
      } catch (e) {
        return [`${name}: ${(e as Error).message}`];
      }
    });
    expect(invalid).toEqual([]);
  });
});

describe('Grove placement of the 1.x graph', () => {
  const topology = {
    topologyConstraint: { clusterTopologyName: 'gb200-racks', packDomain: 'block' },
    prefill: { topologyConstraint: { packDomain: 'rack' }, compilationCache: { claimName: 'vllm-compile-cache', mountPath: '/cache' } },
    decode: { topologyConstraint: { packDomain: 'rack' }, compilationCache: { claimName: 'vllm-compile-cache' } },
  };

  test.each([DEFAULT_DYNAMO_VERSION, '1.5.1', '1.4.2'])('Dynamo %s writes spec.topologyConstraint, components[].topologyConstraint and compilationCache', (version) => {
    const graph: any = renderGraph(disaggregatedGraphSpec('llm', 'serving', options(version, topology))).graph;
    expect(graph.spec.topologyConstraint).toEqual({ clusterTopologyName: 'gb200-racks', packDomain: 'block' });
    const byName = Object.fromEntries(graph.spec.components.map((c: any) => [c.name, c]));
    expect(byName.VllmPrefillWorker.topologyConstraint).toEqual({ packDomain: 'rack' });
    expect(byName.VllmPrefillWorker.compilationCache).toEqual({ pvcName: 'vllm-compile-cache', mountPath: '/cache' });
    expect(byName.VllmDecodeWorker.compilationCache).toEqual({ pvcName: 'vllm-compile-cache' });
    // the frontend and planner inherit the graph's packDomain: nothing of their own is written
    expect(byName.Frontend.topologyConstraint).toBeUndefined();
    expect(crdErrors(graph)).toEqual([]);
  });

  test('a component may set its own packDomain on the frontend and planner too', () => {
    const graph: any = renderGraph(
      disaggregatedGraphSpec('llm', 'serving', options(DEFAULT_DYNAMO_VERSION, { ...topology, frontend: { topologyConstraint: { packDomain: 'zone' } } })),
    ).graph;
    expect(graph.spec.components.find((c: any) => c.name === 'Frontend').topologyConstraint).toEqual({ packDomain: 'zone' });
    expect(crdErrors(graph)).toEqual([]);
  });

  test.each(['0.9.0', '0.8.1'])('Dynamo %s, whose CRD has neither field, refuses them all at once', (version) => {
    expect(issuesOf(() => renderGraph(disaggregatedGraphSpec('llm', 'serving', options(version, topology))))).toEqual([
      `topologyConstraint: is set, but the DynamoGraphDeployment of Dynamo ${version.slice(0, 3)}.x has no topology constraints (it came with the 1.x v1beta1 API); use Dynamo 1.4 or later, or leave it out`,
      `prefill.topologyConstraint: is set, but the DynamoGraphDeployment of Dynamo ${version.slice(0, 3)}.x has no topology constraints (it came with the 1.x v1beta1 API); use Dynamo 1.4 or later, or leave it out`,
      `prefill.compilationCache: is set, but the DynamoGraphDeployment of Dynamo ${version.slice(0, 3)}.x has no compilationCache field (it came with the 1.x v1beta1 API); use Dynamo 1.4 or later, or leave it out`,
      `decode.topologyConstraint: is set, but the DynamoGraphDeployment of Dynamo ${version.slice(0, 3)}.x has no topology constraints (it came with the 1.x v1beta1 API); use Dynamo 1.4 or later, or leave it out`,
      `decode.compilationCache: is set, but the DynamoGraphDeployment of Dynamo ${version.slice(0, 3)}.x has no compilationCache field (it came with the 1.x v1beta1 API); use Dynamo 1.4 or later, or leave it out`,
    ]);
  });
});

describe('placement options are checked, every problem at once', () => {
  test('wrong shapes, operators, weights and names are named at their paths', () => {
    const issues = issuesOf(() =>
      renderGraph(
        disaggregatedGraphSpec('llm', 'serving', {
          model: MODEL,
          backend: Backend.vllm(),
          priorityClassName: 'High_Priority',
          topologyConstraint: { packDomain: 'rack' } as any,
          frontend: { topologySpreadConstraints: [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'Sometimes', minDomains: 2 } as any] },
          prefill: {
            affinity: {
              nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
              podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 101, podAffinityTerm: { labelSelector: {} } as any }] },
            },
          },
          decode: {
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [{ matchExpressions: [{ key: 'gpu', operator: 'Gt', values: ['many'] }, { key: 'a', operator: 'Exists', values: ['x'] }, { key: 'b', operator: 'In' }] }],
                },
              },
              podAffinty: {},
            } as any,
            topologyConstraint: { packDomain: 'Rack' },
            compilationCache: { claimName: 'cache', mountPath: 'cache' },
          },
        }),
      ),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^priorityClassName: must be a DNS-1123 subdomain .*got "High_Priority"/),
        'topologyConstraint.clusterTopologyName: is required: the name of the ClusterTopology resource',
        'frontend.topologySpreadConstraints[0].maxSkew: must be a positive integer, got 0',
        'frontend.topologySpreadConstraints[0].whenUnsatisfiable: must be one of "DoNotSchedule", "ScheduleAnyway", got "Sometimes"',
        'prefill.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: must list at least one node selector term',
        expect.stringMatching(/^prefill\.affinity\.podAntiAffinity\.preferredDuringSchedulingIgnoredDuringExecution\[0\]\.weight: must be a positive integer no larger than 100 .*got 101/),
        'prefill.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: is required: a non-empty string',
        'decode.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: must be one integer (e.g. ["3"]) when operator is Gt, got ["many"]',
        'decode.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values: must be empty when operator is Exists, got ["x"]',
        'decode.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[2].values: must list at least one value when operator is In',
        expect.stringMatching(/^decode\.affinity\.podAffinty: is not a known option/),
        expect.stringMatching(/^decode\.topologyConstraint\.packDomain: must be a DNS-1123 label .*got "Rack"/),
        'decode.compilationCache.mountPath: must be an absolute path such as "/cache", got "cache"',
      ]),
    );
  });

  test('minDomains only with DoNotSchedule', () => {
    expect(
      issuesOf(() =>
        renderGraph(
          disaggregatedGraphSpec('llm', 'serving', {
            model: MODEL,
            backend: Backend.vllm(),
            prefill: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2 }] },
            decode: {},
          }),
        ),
      ),
    ).toEqual(['prefill.topologySpreadConstraints[0].minDomains: is set, but whenUnsatisfiable is "ScheduleAnyway"; the API takes minDomains only with "DoNotSchedule"']);
  });
});
