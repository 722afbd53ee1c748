import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * A Hugging Face hub on 127.0.0.1 that serves one model's files and records every request (its
 * path and its Authorization header): enough of the hub's API for `snapshot_download` (repo info,
 * the file tree, file downloads). It answers any other model with 404.
 */
export interface HubRequest {
  readonly method: string;
  readonly url: string;
  readonly authorization?: string;
}

export class FakeHub {
  public static async start(repo?: { id: string; dir: string }): Promise<FakeHub> {
    const hub = new FakeHub(repo);
    await new Promise<void>((resolve) => hub.server.listen(0, '127.0.0.1', resolve));
    return hub;
  }

  public readonly requests: HubRequest[] = [];
  private readonly server: Server;
  private readonly sha = 'a'.repeat(40);

  private constructor(private readonly repo?: { id: string; dir: string }) {
    this.server = createServer((req, res) => {
      this.requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
      const answer = this.answer(req);
      res.writeHead(answer.status, answer.headers);
      res.end(req.method === 'HEAD' ? undefined : answer.body);
    });
  }

  public get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private files(): { path: string; body: Buffer; oid: string }[] {
    if (!this.repo) return [];
    return readdirSync(this.repo.dir)
      .sort()
      .map((f) => {
        const body = readFileSync(join(this.repo!.dir, f));
        return { path: f, body, oid: createHash('sha1').update(body).digest('hex') };
      });
  }

  private answer(req: IncomingMessage): { status: number; headers: Record<string, string | number>; body?: Buffer | string } {
    const url = new URL(req.url ?? '/', 'http://hub');
    const json = (v: unknown) => ({ status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(v) });
    const id = this.repo?.id;
    if (id && url.pathname === `/api/models/${id}/revision/main`) {
      return json({ id, modelId: id, sha: this.sha, private: false, siblings: this.files().map((f) => ({ rfilename: f.path })) });
    }
    if (id && url.pathname === `/api/models/${id}/tree/${this.sha}`) {
      return json(this.files().map((f) => ({ type: 'file', path: f.path, size: f.body.length, oid: f.oid })));
    }
    const prefix = `/${id}/resolve/`;
    if (id && url.pathname.startsWith(prefix)) {
      const name = url.pathname.slice(prefix.length).split('/').slice(1).join('/');
      const file = this.files().find((f) => f.path === name);
      if (file) {
        return { status: 200, headers: { 'Content-Length': file.body.length, ETag: `"${file.oid}"`, 'X-Repo-Commit': this.sha, 'Content-Type': 'application/octet-stream' }, body: file.body };
      }
    }
    return { status: 404, headers: { 'Content-Type': 'application/json', 'X-Error-Code': 'RepoNotFound' }, body: JSON.stringify({ error: 'Repository not found' }) };
  }

  public close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
