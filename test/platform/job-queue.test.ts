import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/platform/clock.js';
import { openDatabase } from '../../src/platform/db/index.js';
import { JobQueue } from '../../src/platform/jobs/queue.js';
import { useTempDirs } from '../helpers/temp.js';

/**
 * The durable job queue on a real SQLite file. `idle()` is what tests and shutdown wait on: it
 * must end once nothing will run, also when the queue is stopped with a job still due (a loaded
 * test run once timed out a test, closed its app, and the test's own `idle()` then spun for an
 * hour at 100% CPU, holding the test file open).
 */

const { tempDir, closeFirst } = useTempDirs('job-queue-');
const log = { error: () => {}, info: () => {} } as unknown as FastifyBaseLogger;

function queueOnNewDatabase(): JobQueue {
  const database = closeFirst(openDatabase(path.join(tempDir(), 'chat-agent.db')));
  return new JobQueue(database.db, systemClock, log, { kinds: ['test'] });
}

describe('JobQueue.idle()', () => {
  it('waits for a due job to run when the queue is started', async () => {
    const queue = queueOnNewDatabase();
    const ran: string[] = [];
    queue.register('test', async (job) => {
      ran.push(job.subject_id);
    });
    queue.start();
    queue.enqueue('test', 'subject-1');
    await queue.idle();
    expect(ran).toEqual(['subject-1']);
    await queue.stop();
  });

  it('resolves when the queue is stopped, though a job is still due (nothing will run it)', async () => {
    const queue = queueOnNewDatabase();
    const ran: string[] = [];
    queue.register('test', async (job) => {
      ran.push(job.subject_id);
    });
    // never started, as after stop(): the job stays queued
    queue.enqueue('test', 'subject-2');
    await queue.idle();
    expect(ran).toEqual([]);

    queue.start();
    await queue.stop();
    queue.enqueue('test', 'subject-3');
    await queue.idle();
    expect(ran).toEqual(['subject-2']);
  });
});
