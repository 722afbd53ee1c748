/**
 * Option combinations the library must refuse, each also forced past it: the object the
 * library writes for the nearest valid options, patched into what the bad options would
 * have written. The API server must refuse the patched object too, and the library must
 * have refused the options first, so its rules are never weaker than the cluster's.
 */
import {
  Backend,
  disaggregatedGraphSpec,
  Fabric,
  renderGraph,
  renderSlaPlanned,
} from '../../src';

type Obj = Record<string, any>;

export interface BrokenCase {
  readonly name: string;
  /** The library's refusal of the bad options: the rule it must report. */
  readonly rule: string;
  readonly refuse: () => unknown;
  /** The object written for valid options, forced into what the bad ones ask for. */
  readonly forced: () => Obj;
  /**
   * What the API server says of the forced object: `refuses` (its message contains this), or
   * `accepts` where the library is stricter than the schema (the reason is in `why`).
   */
  readonly server: { readonly refuses: string } | { readonly accepts: true; readonly why: string };
}

const MODEL = 'meta-llama/Llama-3.3-70B-Instruct';
const disagg = (o: Obj = {}) => ({ model: MODEL, backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {}, ...o });
const graph = (o: Obj = {}, name = 'broken') => JSON.parse(JSON.stringify(renderGraph(disaggregatedGraphSpec(name, 'default', disagg(o) as never)).graph));
const component = (g: Obj, name: string) => g.spec.components.find((c: Obj) => c.name === name);

export const BROKEN: readonly BrokenCase[] = [
  {
    name: 'negative decode replicas',
    rule: 'value-range',
    server: { refuses: 'spec.components[2].replicas in body should be greater than or equal to 0' },
    refuse: () => renderGraph(disaggregatedGraphSpec('broken', 'default', disagg({ decode: { replicas: -1 } }) as never)),
    forced: () => {
      const g = graph();
      component(g, 'VllmDecodeWorker').replicas = -1;
      return g;
    },
  },
  {
    name: 'a misspelled worker option',
    rule: 'unknown-option',
    server: { refuses: '.replica: field not declared in schema' },
    refuse: () => renderGraph(disaggregatedGraphSpec('broken', 'default', disagg({ decode: { replica: 2 } }) as never)),
    forced: () => {
      const g = graph();
      component(g, 'VllmDecodeWorker').replica = 2;
      return g;
    },
  },
  {
    name: 'a service name with an underscore',
    rule: 'name-format',
    server: { refuses: 'spec.components[2].name in body should match' },
    refuse: () => renderGraph(disaggregatedGraphSpec('broken', 'default', disagg({ decode: { serviceName: 'Vllm_Decode' } }) as never)),
    forced: () => {
      const g = graph();
      component(g, 'VllmDecodeWorker').name = 'Vllm_Decode';
      return g;
    },
  },
  {
    name: 'two services whose names differ only in case',
    rule: 'duplicate-service',
    server: { refuses: 'component names must be unique case-insensitively' },
    refuse: () => renderGraph(disaggregatedGraphSpec('broken', 'default', disagg({ decode: { serviceName: 'frontend' } }) as never)),
    forced: () => {
      const g = graph();
      component(g, 'VllmDecodeWorker').name = 'frontend';
      return g;
    },
  },
  {
    name: 'a graph name that is not a DNS label',
    rule: 'name-format',
    server: { refuses: 'metadata.name: Invalid value: "Broken_Graph": a lowercase RFC 1123 subdomain' },
    refuse: () => renderGraph(disaggregatedGraphSpec('Broken_Graph', 'default', disagg() as never)),
    forced: () => {
      const g = graph();
      g.metadata.name = 'Broken_Graph';
      return g;
    },
  },
  {
    name: 'shared memory that is not a quantity',
    rule: 'quantity-format',
    server: { refuses: 'spec.components[2].sharedMemorySize in body should match' },
    refuse: () => renderGraph(disaggregatedGraphSpec('broken', 'default', disagg({ decode: { sharedMemory: 'lots' } }) as never)),
    forced: () => {
      const g = graph();
      component(g, 'VllmDecodeWorker').sharedMemorySize = 'lots';
      return g;
    },
  },
  {
    name: 'an SLA request with a negative TTFT target',
    rule: 'value-range',
    server: { accepts: true, why: 'the v1beta1 request schema puts no minimum on sla.ttft' },
    refuse: () => renderSlaPlanned('broken', 'default', { model: MODEL, backend: Backend.vllm(), sla: { isl: 100, osl: 10, ttftMs: -1, itlMs: 10 } }),
    forced: () => {
      const r = JSON.parse(JSON.stringify(renderSlaPlanned('broken', 'default', { model: MODEL, backend: Backend.vllm(), sla: { isl: 100, osl: 10, ttftMs: 300, itlMs: 10 } }).object));
      r.spec.sla.ttft = -1;
      return r;
    },
  },
];
