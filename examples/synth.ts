import { rmSync } from 'node:fs';
import { App } from 'cdk8s';
import { addExamples } from './index';

// `npm run synth`: every example into dist/<name>.k8s.yaml, and nothing else there
rmSync('dist', { recursive: true, force: true });
const app = new App({ outdir: 'dist' });
addExamples(app);
app.synth();
