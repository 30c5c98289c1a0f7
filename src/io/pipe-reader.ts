// Whether anyone still reads our standard output. `hogctl sandbox -q | head -1` must end when
// `head` has its line: a server writes nothing more, so it never meets the EPIPE that ends other
// commands in a pipe (a zero-byte write does not raise one). On Linux the pipe's other end can be
// looked for in /proc: a process holding it open for reading. Elsewhere, or when stdout is not a
// pipe, the answer is always "yes".
import { fstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

export function stdoutIsPipe(): boolean {
  try {
    return process.platform === 'linux' && fstatSync(1).isFIFO();
  } catch {
    return false;
  }
}

/** False once no other process holds our stdout pipe open for reading. */
export function stdoutHasReader(): boolean {
  let pipe: string;
  try {
    pipe = readlinkSync('/proc/self/fd/1');
  } catch {
    return true;
  }
  if (!/^pipe:\[\d+\]$/.test(pipe)) return true;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone meanwhile, or another user's: not our reader
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) !== pipe) continue;
        const flags = /flags:\s*([0-7]+)/.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))?.[1];
        // O_ACCMODE 0 is O_RDONLY: a reader (the write end is ours, or a sibling writer's).
        if (flags === undefined || (parseInt(flags, 8) & 3) === 0) return true;
      } catch {
        // closed meanwhile
      }
    }
  }
  return false;
}

/** Resolves once stdout is a pipe nobody reads any more; never resolves otherwise. */
export function untilStdoutReaderGone(intervalMs = 500): { gone: Promise<void>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  const gone = new Promise<void>((resolve) => {
    if (!stdoutIsPipe()) return;
    timer = setInterval(() => {
      if (!stdoutHasReader()) {
        clearInterval(timer);
        resolve();
      }
    }, intervalMs);
    timer.unref();
  });
  return { gone, stop: () => clearInterval(timer) };
}
