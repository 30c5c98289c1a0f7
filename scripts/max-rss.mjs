// Preloaded with `node --import` by the benchmark: reports the process's peak memory on exit.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const fd = Number(process.env.HOGCTL_BENCH_RSS_FD || 2);
  writeSync(fd, `\nmax-rss-kib=${process.resourceUsage().maxRSS}\n`);
});
