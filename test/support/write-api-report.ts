import * as fs from 'fs';
import { API_REPORT, apiReport } from './api-report';

// `npm run api`: writes the public surface to API.md
fs.writeFileSync(API_REPORT, apiReport());
console.log(`wrote ${API_REPORT}`);
