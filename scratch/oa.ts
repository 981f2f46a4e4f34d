import { startTestProvider } from '../test/support/provider.ts';
const p = await startTestProvider();
const doc = await (await fetch(`${p.url}/openapi.json`)).json() as any;
console.log(Object.keys(doc.components.schemas).join(' '));
console.log(JSON.stringify(doc).length);
console.log(JSON.stringify(doc.paths['/v1/profile/effective'].post.responses['200']));
await p.close();
