/**
 * Node's own start-up, for the cold case: a process that imports nothing and reports the time since
 * it started (performance.now() counts from the process's time origin). The cold cases subtract it.
 */
process.stdout.write(`${JSON.stringify({ ms: performance.now() })}\n`);
