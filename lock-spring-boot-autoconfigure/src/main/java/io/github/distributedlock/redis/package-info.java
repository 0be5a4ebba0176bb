/**
 * The Redis implementation of {@link io.github.distributedlock.core.LockClient}, {@link RedisLockClient}: Lua
 * scripts (under {@code src/main/resources/io/github/distributedlock/redis/}), owner identity, lease renewal
 * (the watchdog) and release notifications over Redis pub/sub. How its locks work:
 * <ul>
 * <li><b>Data</b>: a reentrant lock is one Redis hash at {@code <key-prefix><key>} whose one field is the
 * owner id ({@code <client id>:<thread id>/<attempt>}, the client id a random UUID per client) and its value the
 * hold count. The key's TTL is the lease. A read/write lock is also one hash (so one Redis Cluster slot),
 * with the writer, each reader and its own lease deadline, and waiting writers' claims (see
 * {@code rw_common.lua}). One key is one kind of lock at a time: acquiring a key held as the other kind is
 * refused with an {@link IllegalStateException}. Every check-then-act is one Lua script (see the {@code .lua}
 * files of this package), so a release or renewal by anyone but the owner changes nothing.</li>
 * <li><b>Read/write</b>: readers share, a writer excludes everyone; the write holder may take the read
 * lock (downgrade), a reader may not take the write lock (upgrade: {@link IllegalMonitorStateException}).
 * A waiting writer makes new readers wait behind it, so readers cannot starve it; the readers waiting when
 * a writer releases enter before the next writer (phase-fair), so writers cannot starve readers either.</li>
 * <li><b>Renewal</b>: see {@link LeaseWatchdog}. If an extension finds the lock gone, or cannot reach Redis for
 * longer than the lease, the hold is marked lost and its release throws
 * {@link io.github.distributedlock.core.LockLostException}.</li>
 * <li><b>Waiting</b>: see {@link WaitingAcquirer}. Owners of this client that want the same exclusive lock
 * queue locally (a fair {@link LocalQueue}), so only the first of them talks to Redis; the release of a
 * reentrant lock hands it to the next local waiter in its one round trip, unless another instance is queued
 * for it in Redis, which comes first. No thread waits: a release notification, a hand-over or a timer
 * completes the wait.</li>
 * <li><b>Non-blocking core</b>: every operation is a chain of asynchronous steps ({@link Acquisition},
 * {@link HoldReleaser}); on Lettuce with its shared connection (Spring Data Redis's default) scripts are sent
 * without blocking a thread ({@link LettuceScriptTransport}). {@link RedisLockClient#acquireAsync} and
 * {@link io.github.distributedlock.core.LockHandle#closeAsync()} use it as it is; the blocking methods
 * ({@link RedisLockClient#acquire}, {@link RedisLockClient#release}) wait for it. With a blocking client
 * (Jedis) each script blocks the thread that sends it, but waiting still costs no thread.</li>
 * <li><b>Owners</b>: a thread, or an owner that is not a thread (from {@link RedisLockClient#newAsyncOwner()}:
 * one asynchronous call or reactive chain). Redis records each acquisition attempt of an owner under an id of its
 * own, {@code <client id>:<thread id>/<attempt>} or {@code <client id>:async-<n>/<attempt>}, and every command
 * about a hold names its attempt, so a late or repeated command never acts on a later attempt.</li>
 * <li><b>Reentrancy</b>: a re-entry while the lease is confirmed for at least a third of its length more
 * is counted locally, without a round trip; only the last release goes to Redis, and it releases every hold
 * Redis records for the owner (also one whose round trip timed out after it ran).</li>
 * <li><b>Replica sync</b> (opt-in, see {@link ReplicaSync}): every acquisition waits with {@code WAIT} until
 * enough replicas have the lock; one they do not acknowledge in time is undone and tried again.</li>
 * <li><b>Threads</b>: a hold taken through a {@link java.util.concurrent.locks.Lock} view belongs to its
 * thread, which must release it. On a pool thread, release it before the task ends: the pool's next task on
 * that thread is the same owner and would re-enter it. A hold whose thread ended without releasing it is not
 * renewed: the watchdog releases it at its next renewal, with a warning. A hold with an open
 * {@link io.github.distributedlock.core.LockHandle} is exempt (any thread may close a handle).</li>
 * </ul>
 * Redis commands fail within the connection factory's command timeout ({@code spring.data.redis.timeout});
 * such failures surface as {@link io.github.distributedlock.core.DistributedLockException}.
 *
 * <h2>One acquire, step by step (for maintainers)</h2>
 * An uncontended {@code @DistributedLock} call, acquire and release, in the order the classes run (the Lua files
 * are under {@code src/main/resources/io/github/distributedlock/redis/}):
 * <ol>
 * <li>{@code aop}: {@code DistributedLockInterceptor} finds the method's {@code LockOperation} (resolved once by
 * {@code LockOperationSource}), evaluates the key ({@code LockKeyEvaluator}) and calls the template.</li>
 * <li>{@code core}: {@code DistributedLockTemplate} runs {@code LockedRun}, which asks {@code LockAcquirer} for a
 * {@link io.github.distributedlock.core.LockRequest} of the store ({@code LockClient.acquire}); with Micrometer,
 * {@code metrics.ObservedLockClient} decorates the client.</li>
 * <li>{@link RedisLockClient#acquire} reads its {@link ClientSession} (one run of the client) and starts an
 * {@link Acquisition} through {@link HoldAcquirer}, which picks the request's {@link LockKind} ({@link LockKinds}:
 * here {@link ReentrantKind}).</li>
 * <li>{@link Acquisition}: no hold of this owner yet, so a new {@link Attempt} (its own owner id); an exclusive kind
 * takes a turn in the key's {@link LocalQueue} ({@link LocalQueues}), the head at once when nobody of this client
 * holds or waits.</li>
 * <li>{@link WaitingAcquirer} registers a {@link NotificationWaiter} with the {@link NotificationListener} and starts
 * a {@link RedisWait}, whose first try is {@link ReentrantKind#tryAcquire}: {@link ScriptExecutor} sends
 * {@code reentrant_acquire_head.lua} (with {@code fence.lua}, {@code notify.lua}, {@code reentrant_common.lua},
 * {@code reentrant_acquire.lua} behind it) through a {@link ScriptTransport} ({@link LettuceScriptTransport}
 * without blocking a thread); a free lock answers the fencing token at once.</li>
 * <li>{@link HoldAcquirer#onAcquired} makes the {@link Hold} from the {@link Attempt} and a {@link Grant} (dated by
 * {@link ServerLife} with its {@link ConnectionBreaks connection generation}), tells {@link HoldEvents}, and
 * schedules it with the {@link LeaseWatchdog}; the caller gets a {@link RedisLockHandle}.</li>
 * <li>Release: the handle's {@code close()} ({@code core.AbstractLockHandle}) calls {@link HoldReleaser#release},
 * which takes the last hold ({@link Hold#release}) and sends {@link ReentrantKind#release}
 * ({@code reentrant_release_head.lua}: HGET, HLEN, DEL); the hold leaves the watchdog and its local queue, and
 * {@link HoldEvents} tells of the release. A failed round trip goes to {@link ReleaseFailures} (retried by
 * {@link ReleaseRetrier}); a "not held" after a broken connection to {@link ReleaseReplayCheck}.</li>
 * </ol>
 * <b>A contended hand-over</b>, two threads of one client: the second thread's {@link Acquisition} waits in the
 * {@link LocalQueue} (a {@link LocalQueue.Waiter}, no thread blocked). The holder's {@link HoldReleaser} reserves it
 * ({@link LocalQueue#reserveNext()}) and passes it to {@link ReentrantKind#release}, whose script writes the waiter
 * as holder with a new token in the same round trip (answer {@link LockScripts#HANDED_OVER}); the queue hands the
 * turn over ({@link LocalQueue#handedOver}) and the waiter's {@link Acquisition} makes its {@link Hold} from it.
 * Between instances, a blocked {@link RedisWait} keeps its place in the lock's queue in Redis ({@code q:<owner>});
 * the holder's release grants the lock to the first in line and publishes the grant on the waiter's client channel
 * ({@code notify.lua}); the {@link NotificationListener} calls {@link NotificationWaiter#grant}, and the
 * {@link RedisWait} enters the hold it was granted, or tries again at once if the grant came late.
 * <p>
 * The families: {@code *Kind} (the scripts of each kind of lock), {@code Hold*} (a hold and its acquire and
 * release sides), {@code Notification*}, {@code Classic*} and {@code Sharded*} (release notifications and grants),
 * {@code Release*} (the release command's failures, retries and replays), {@code Lease*} (renewal: the watchdog,
 * its scripts, its watches), {@code Wait*} and {@link RedisWait} (waiting in Redis), {@code Local*} (the local
 * queue), {@code Script*} (scripts and their transport), {@code Redis*} (diagnostics, permissions, failures).
 */
@NullMarked
package io.github.distributedlock.redis;

import org.jspecify.annotations.NullMarked;
