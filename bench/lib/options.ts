/** Settings every part reads (bench/run.ts parses them from the command line). */
export interface BenchOptions {
  runs: number;
  /** Duration of each wrk run and each refresh run, seconds. */
  seconds: number;
  /** wrk connections of the throughput figures. */
  connections: number;
  /** wrk connections of the latency figures (1M rows), so queueing does not dominate them. */
  latencyConnections: number;
  /** Products in the store of the Admin API figures (PostgreSQL). */
  products: number;
  /** Products created through the Admin API before the embedded figure. */
  embeddedProducts: number;
  millionRows: number;
  /** The pg floor sends named (prepared) statements. */
  floorPrepared: boolean;
  refreshChains: number;
  webhookEvents: number;
  webhookRate: number;
  webhookSeconds: number;
  webhookPerTarget: number[];
  /** Working directory of this run (/tmp/i10-bench-*). */
  dir: string;
}

/** Peak RSS (VmHWM, MB) of each API process of the PostgreSQL parts, for the memory figure. */
export const apiPeakRss: Array<{ process: string; mb: number }> = [];
