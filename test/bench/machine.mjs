// What the figures were measured on, including how fast this disk commits (the order-creation
// figures at synchronous=FULL are bounded by fsyncs per second, so the run records it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

/** Single-row commits per second in a WAL database under `dir`, for one synchronous setting. */
function commitsPerSecond(dir, synchronous, ms) {
  const file = path.join(dir, `probe-${synchronous}.db`);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    const body = 'x'.repeat(600);
    const started = performance.now();
    let n = 0;
    while (performance.now() - started < ms) {
      insert.run(body);
      n++;
    }
    return n / ((performance.now() - started) / 1000);
  } finally {
    db.close();
  }
}

export function describeMachine(tmpDir, probeMs = 1000) {
  const dir = fs.mkdtempSync(path.join(tmpDir, 'disk-probe-'));
  try {
    return {
      cpus: os.availableParallelism?.() ?? os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? 'unknown',
      memory_gb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
      node: process.version,
      platform: `${os.type()} ${os.release()} ${os.arch()}`,
      load_average_at_start: os.loadavg().map((l) => Math.round(l * 100) / 100),
      sqlite_commits_per_s: {
        FULL: Math.round(commitsPerSecond(dir, 'FULL', probeMs)),
        NORMAL: Math.round(commitsPerSecond(dir, 'NORMAL', probeMs)),
      },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
