/**
 * Where a swarm's tasks wait. Backends route by swarm name only, so a hierarchical swarm's
 * branches are swarms of their own: `<swarm>__s<n>` is sub-leader n's inbox (the root's tasks),
 * `<swarm>__s<n>_w` its workers' queue (its own tasks), so a worker only ever gets work from its
 * own sub-leader. `_` never occurs in a manifest name, so these cannot meet another swarm's.
 */
export function branchQueues(swarm: string, branch: number): { inbox: string; workers: string } {
  const inbox = `${swarm}__s${branch + 1}`;
  return { inbox, workers: `${inbox}_w` };
}

/** Every queue of a swarm: its own, and each branch's inbox and workers' queue. */
export function swarmQueues(swarm: string, branches = 0): string[] {
  const queues = [swarm];
  for (let i = 0; i < branches; i++) {
    const { inbox, workers } = branchQueues(swarm, i);
    queues.push(inbox, workers);
  }
  return queues;
}
