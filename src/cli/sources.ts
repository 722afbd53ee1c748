import * as fs from 'fs';
import * as path from 'path';
import { CliIo, UsageError } from './args';

/**
 * Where the commands read manifests from: files, directories of *.yaml and *.yml, and standard
 * input. The manifests may come from anyone (a pull request, a chart from the internet), so only
 * regular files are read, each up to a size limit, and links are followed only to regular files
 * inside the directory being read. Everything else met on the way is a file not read, with the
 * reason, never a hang or a crash.
 */

export interface LintSource {
  /** How the file is named in findings. */
  readonly file: string;
  readonly text: string;
}

/** A path given or met in a directory that is not read, and why. */
export interface UnreadFile {
  readonly file: string;
  /** Says what the path is and why it is not read: `is a FIFO (named pipe), not a regular file`. */
  readonly reason: string;
}

export interface SourceOptions {
  /**
   * The largest file (and standard input) read, in bytes.
   * @default DEFAULT_MAX_FILE_SIZE
   */
  readonly maxFileSize?: number;
}

export interface Sources {
  readonly sources: LintSource[];
  readonly unread: UnreadFile[];
}

export const MIB = 1024 * 1024;
/** The size limit per file when none is given: far above any manifest, far below what exhausts memory. */
export const DEFAULT_MAX_FILE_SIZE = 64 * MIB;
/** The largest limit allowed: a file this size already takes minutes and gigabytes to lint (BENCHMARKS.md). */
export const MAX_FILE_SIZE_LIMIT = 256 * MIB;

const YAML_NAME = /\.ya?ml$/;
// O_NOFOLLOW: a link swapped in after the check is not followed; O_NONBLOCK: opening a FIFO swapped
// in does not wait for a writer (the fstat that follows refuses it); O_NOCTTY: a terminal is never adopted
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOCTTY ?? 0);
const CHUNK = MIB;

/** `67108864` -> `64 MiB`; sizes that are not whole KiB or MiB in bytes. */
export function sizeText(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

/**
 * Reads `fd` to its end, or to `maxBytes` + 1 bytes, whichever comes first: a longer input is
 * seen to be too long without being held. Waits out EAGAIN (a non-blocking pipe on standard input).
 */
export function readAtMost(fd: number, maxBytes: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total <= maxBytes) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
    let n: number;
    try {
      n = fs.readSync(fd, chunk, 0, chunk.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      continue;
    }
    if (n === 0) break;
    chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    total += n;
  }
  return Buffer.concat(chunks, total);
}

function typeOf(st: fs.Stats): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'of an unknown type';
}

/** `EACCES: permission denied, open 'x.yaml'` -> `EACCES: permission denied` (the path is named already). */
function errorText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const message = String(err?.message ?? e);
  const m = /^([A-Z0-9_]+): ([^,]*)/.exec(message);
  return m ? `${m[1]}: ${m[2]}` : message.split('\n')[0];
}

function codeOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** `target` is `root` or below it. Both are real paths (no links). */
function inside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** Directory entries in code-unit order of their names: the same on every machine, whatever its locale. */
function byName(a: fs.Dirent, b: fs.Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Why a path is not read: what it is, or the system's error (`is a FIFO (named pipe), not a regular file`). */
export class FileNotRead extends Error {
  constructor(
    message: string,
    /** Set when the file is over the size limit. */
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

function tooLargeText(maxBytes: number, size?: number): string {
  return `${size === undefined ? 'is larger than' : `is ${size} bytes, larger than`} the ${sizeText(maxBytes)} read per file: not read`;
}

/**
 * The bytes of the regular file `file`, at most `maxBytes` of them; anything else throws
 * FileNotRead, saying what the path is. A link in the last component of `file` is not followed
 * (resolve it first to follow it), a FIFO is not waited on: what was opened is checked to be a
 * regular file before a byte is read, so one swapped in after a check is refused as well. The
 * read stops past the limit, even when the file grows while it is read.
 */
export function readRegularFile(file: string, maxBytes: number): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(file, OPEN_FLAGS);
  } catch (e) {
    throw new FileNotRead(codeOf(e) === 'ELOOP' ? 'is a link where a file was expected (it changed while being read): not followed' : `cannot be read: ${errorText(e)}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new FileNotRead(`is ${typeOf(st)}, not a regular file`);
    if (st.size > maxBytes) throw new FileNotRead(tooLargeText(maxBytes, st.size), true);
    const bytes = readAtMost(fd, maxBytes);
    if (bytes.length > maxBytes) throw new FileNotRead(tooLargeText(maxBytes), true);
    return bytes;
  } catch (e) {
    throw e instanceof FileNotRead ? e : new FileNotRead(`cannot be read: ${errorText(e)}`);
  } finally {
    fs.closeSync(fd);
  }
}

class Reader {
  readonly sources: LintSource[] = [];
  readonly unread: UnreadFile[] = [];
  /** Directories already walked (device and inode): a bind mount of a parent is not walked again. */
  private readonly walked = new Set<string>();

  constructor(
    private readonly io: CliIo,
    private readonly maxFileSize: number,
  ) {}

  argument(arg: string): void {
    if (arg === '-') return this.stdin();
    let st: fs.Stats;
    try {
      st = fs.lstatSync(arg);
    } catch (e) {
      if (codeOf(e) === 'ENOENT') throw new UsageError(`${arg}: no such file or directory`);
      return this.skip(arg, `cannot be read: ${errorText(e)}`);
    }
    if (st.isSymbolicLink()) {
      // a link named on the command line is the user's own choice: followed wherever it leads
      const target = this.resolve(arg);
      if (target === undefined) return;
      const to = this.lstat(arg, target);
      if (to === undefined) return;
      if (to.isDirectory()) return this.directory(arg, target);
      if (to.isFile()) return this.file(arg, target);
      return this.skip(arg, `is a link to ${target}, ${typeOf(to)}, not a regular file`);
    }
    if (st.isDirectory()) {
      const root = this.resolve(arg);
      if (root !== undefined) this.directory(arg, root);
      return;
    }
    if (st.isFile()) return this.file(arg, arg);
    this.skip(arg, `is ${typeOf(st)}, not a regular file${st.isFIFO() || st.isCharacterDevice() ? ' (to read a pipe, give - and redirect it to standard input)' : ''}`);
  }

  private stdin(): void {
    // a reader that takes the bound stops reading there; the text is measured again either way
    const read = this.io.stdin;
    let text: string;
    try {
      text = read(this.maxFileSize + 1);
    } catch (e) {
      return this.skip('<stdin>', `cannot be read: ${errorText(e)}`);
    }
    if (Buffer.byteLength(text, 'utf8') > this.maxFileSize) return this.skip('<stdin>', this.tooLarge());
    this.sources.push({ file: '<stdin>', text });
  }

  /** Walks the directory `dir` (as named on the command line), whose real path is `root`. */
  private directory(dir: string, root: string): void {
    const before = this.sources.length + this.unread.length;
    this.walk(dir, dir, root);
    if (this.sources.length + this.unread.length === before) throw new UsageError(`${dir}: no *.yaml or *.yml files`);
  }

  private walk(dir: string, top: string, root: string): void {
    let entries: fs.Dirent[];
    try {
      const st = fs.statSync(dir);
      const key = `${st.dev}:${st.ino}`;
      if (this.walked.has(key)) return;
      this.walked.add(key);
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      return this.skip(dir, `cannot be read: ${errorText(e)}`);
    }
    for (const e of entries.sort(byName)) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && !e.name.startsWith('.')) this.walk(p, top, root);
        continue;
      }
      if (!YAML_NAME.test(e.name)) continue;
      if (e.isFile()) this.file(p, p);
      else if (e.isSymbolicLink()) this.link(p, top, root);
      else {
        const st = this.lstat(p, p);
        if (st !== undefined) this.skip(p, `is ${typeOf(st)}, not a regular file`);
      }
    }
  }

  /** A link met in the directory `top` (whose real path is `root`): followed only to a regular file under it. */
  private link(p: string, top: string, root: string): void {
    const target = this.resolve(p);
    if (target === undefined) return;
    const st = this.lstat(p, target);
    if (st === undefined) return;
    if (!inside(root, target)) return this.skip(p, `is a link to ${target} (${typeOf(st)}), outside ${top}: lint follows links only to regular files inside the directory it reads`);
    if (!st.isFile()) return this.skip(p, `is a link to ${target}, ${typeOf(st)}, not a regular file`);
    this.file(p, target);
  }

  /** The real path of `p`, or undefined when the link dangles or loops (then reported). */
  private resolve(p: string): string | undefined {
    try {
      return fs.realpathSync.native(p);
    } catch (e) {
      if (codeOf(e) === 'ELOOP') this.skip(p, 'is a link that loops (it leads back to itself, or through more links than the system follows)');
      else if (codeOf(e) === 'ENOENT') this.skip(p, `is a dangling link: ${this.linkTarget(p)} does not exist`);
      else this.skip(p, `cannot be read: ${errorText(e)}`);
      return undefined;
    }
  }

  private linkTarget(p: string): string {
    try {
      return fs.readlinkSync(p);
    } catch {
      return 'its target';
    }
  }

  private lstat(p: string, target: string): fs.Stats | undefined {
    try {
      return fs.lstatSync(target);
    } catch (e) {
      this.skip(p, `cannot be read: ${errorText(e)}`);
      return undefined;
    }
  }

  /** Reads the regular file `target` (a real path) as `name`. */
  private file(name: string, target: string): void {
    try {
      this.sources.push({ file: name, text: readRegularFile(target, this.maxFileSize).toString('utf8') });
    } catch (e) {
      if (!(e instanceof FileNotRead)) this.skip(name, `cannot be read: ${errorText(e)}`);
      else this.skip(name, e.tooLarge ? `${e.message} (raise the limit with --max-file-size)` : e.message);
    }
  }

  private tooLarge(): string {
    return `${tooLargeText(this.maxFileSize)} (raise the limit with --max-file-size)`;
  }

  private skip(file: string, reason: string): void {
    this.unread.push({ file, reason });
  }
}

/**
 * Reads the files and directories given (`-` is standard input): the manifests, and the paths
 * not read with the reason. A missing argument is a usage error, and so is a directory without
 * *.yaml or *.yml files; nothing else throws.
 */
export function collectSources(files: readonly string[], io: CliIo, options: SourceOptions = {}): Sources {
  const reader = new Reader(io, options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE);
  for (const f of files) reader.argument(f);
  return { sources: reader.sources, unread: reader.unread };
}

/** The manifests of `files`; any path not read is a usage error naming every such path and why. */
export function readSources(files: readonly string[], io: CliIo, options: SourceOptions = {}): LintSource[] {
  const { sources, unread } = collectSources(files, io, options);
  if (unread.length > 0) throw new UsageError(unread.map((u) => `${u.file}: ${u.reason}`).join('\n'));
  return sources;
}
