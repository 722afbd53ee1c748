import { App } from 'cdk8s';
import { addExamples } from './index';

// `npm run synth`: every example into dist/<name>.k8s.yaml
const app = new App({ outdir: 'dist' });
addExamples(app);
app.synth();
