import { KubeObject } from '../base/k8s';
import { DynamoRelease } from '../releases/versions';
import { writeRequestV1alpha1 } from './dgdr-v1alpha1';
import { writeRequestV1beta1 } from './dgdr-v1beta1';
import { SlaRequestModel } from './sla-request';

/** The DynamoGraphDeploymentRequest API versions and their writers: `v1beta1` for 1.x, `v1alpha1` for 0.8/0.9. */
export const REQUEST_FORMATS: Readonly<Record<DynamoRelease['apiVersion'], { write(request: SlaRequestModel): KubeObject }>> = {
  'nvidia.com/v1beta1': { write: writeRequestV1beta1 },
  'nvidia.com/v1alpha1': { write: writeRequestV1alpha1 },
};

/** The request in its release's API version. */
export function writeRequest(request: SlaRequestModel): KubeObject {
  return REQUEST_FORMATS[request.release.apiVersion].write(request);
}
