import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Running services of this user, so the CLI can tell which DATA_DIR "the service" uses
 * (docs/operations.md, "Which DATA_DIR the CLI uses"). Each service writes one small file,
 * `<pid>.json` with its pid, port and data directory, into a per-user runtime directory
 * ($XDG_RUNTIME_DIR, else the system temp directory, in `partner-ordering-<uid>`, mode 0700) and
 * removes it when it exits. A file whose process is gone (a crash, kill -9) is stale: readers skip
 * and remove it. Services of other users, in containers or on other machines are not seen: then
 * the CLI cannot tell, and does not refuse.
 */

export interface RunningService {
  pid: number;
  port: number;
  /** The directory's real path (symlinks resolved), as the CLI resolves its own. */
  data_dir: string;
  started_at: string;
  /** Linux: the process start time in clock ticks since boot, so a reused pid is not taken for the service. */
  proc_start: string | null;
}

/** The per-user directory of service files; null when it is not ours alone (then nothing is read or written). */
export function registryDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  const dir = path.join(env.XDG_RUNTIME_DIR || os.tmpdir(), `partner-ordering-${uid ?? os.userInfo().username}`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(dir);
    // Someone else's directory (made first, in a shared /tmp) could feed us false services.
    if (!st.isDirectory() || (uid !== null && st.uid !== uid) || (st.mode & 0o077) !== 0) return null;
    return dir;
  } catch {
    return null;
  }
}

/** The real path of a data directory, or its absolute path while it does not exist yet. */
export function dataDirIdentity(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

function processStart(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm)": state is field 3, starttime field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(entry: RunningService): boolean {
  try {
    process.kill(entry.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return entry.proc_start === null || processStart(entry.pid) === entry.proc_start;
}

/**
 * Records this process as a service on `port` using `dataDir` until it exits (any exit that runs
 * 'exit' handlers: a clean shutdown, process.exit). Best effort: a registry that cannot be
 * written only means the CLI cannot tell.
 */
export function registerService(port: number, dataDir: string, env: NodeJS.ProcessEnv = process.env): void {
  const dir = registryDir(env);
  if (!dir) return;
  const file = path.join(dir, `${process.pid}.json`);
  const entry: RunningService = {
    pid: process.pid,
    port,
    data_dir: dataDirIdentity(dataDir),
    started_at: new Date().toISOString(),
    proc_start: processStart(process.pid),
  };
  try {
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(entry), { mode: 0o600 });
    fs.renameSync(`${file}.tmp`, file);
  } catch {
    return;
  }
  process.once('exit', () => fs.rmSync(file, { force: true }));
}

/** The live services of this user; stale files are removed on the way. */
export function runningServices(env: NodeJS.ProcessEnv = process.env): RunningService[] {
  const dir = registryDir(env);
  if (!dir) return [];
  const found: RunningService[] = [];
  for (const name of fs.readdirSync(dir)) {
    if (!/^\d+\.json$/.test(name)) continue;
    const file = path.join(dir, name);
    let entry: RunningService;
    try {
      entry = JSON.parse(fs.readFileSync(file, 'utf8')) as RunningService;
    } catch {
      continue; // being written, or not ours to judge
    }
    if (isAlive(entry)) found.push(entry);
    else fs.rmSync(file, { force: true });
  }
  return found;
}
