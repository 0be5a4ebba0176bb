package io.github.distributedlock.docs;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockLoss;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;

import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The snippets of docs/migrating.md, compiled here and run by {@code MigratingSnippetsTests} on a real Redis. What
 * the snippets call but do not show (the work, a counter of runs) is outside their tags.
 */
@SuppressWarnings("unused")
final class MigratingSnippets {

	private MigratingSnippets() {
	}

	/** ShedLock's README example: a job every 15 minutes that runs at most once per 15 minutes. */
	static class ReportJob {

		final AtomicInteger runs = new AtomicInteger();

		// tag::shedlock-job[]
		@Scheduled(cron = "0 */15 * * * *")
		@DistributedLock(name = "scheduledTaskName", holdAtLeast = "14m")   // was @SchedulerLock(name = "scheduledTaskName",
		public void scheduledTask() {                                       //     lockAtMostFor = "14m", lockAtLeastFor = "14m")
			LockContext.current();   // was LockAssert.assertLocked(): throws IllegalStateException when no lock is held
			render();
		}
		// end::shedlock-job[]

		private void render() {
			this.runs.incrementAndGet();
		}

		/** How many times it ran; a method, since callers get the bean's proxy. */
		int runs() {
			return this.runs.get();
		}

	}

	/** ShedLock's lockAtMostFor as a hard cap: a hung run frees its lock. */
	static class ExportJob {

		long leaseMillisSeen;

		// tag::shedlock-cap[]
		@Scheduled(cron = "0 0 * * * *")
		@DistributedLock(name = "nightly-export", lease = "10m", autoRenew = false,   // was lockAtMostFor = "10m": the lock
				onLost = OnLockLoss.INTERRUPT)                                      // ends 10 min after it was taken,
		public void export() {                                                       // and the run is interrupted then
			writeFiles();
		}
		// end::shedlock-cap[]

		private void writeFiles() {
			this.leaseMillisSeen = Duration.between(Instant.now(), LockContext.current().leaseConfirmedUntil()).toMillis();
		}

		/** What was left of the lease while it ran, in ms; a method, since callers get the bean's proxy. */
		long leaseMillisSeen() {
			return this.leaseMillisSeen;
		}

	}

	/** ShedLock's LockingTaskExecutor, without a framework. */
	static class Cleanup {

		private final DistributedLockTemplate lockTemplate;

		final AtomicInteger runs = new AtomicInteger();

		Cleanup(DistributedLockTemplate lockTemplate) {
			this.lockTemplate = lockTemplate;
		}

		boolean run() {
			Runnable task = this.runs::incrementAndGet;
			// tag::shedlock-executor[]
			// was executor.executeWithLock(task, new LockConfiguration(Instant.now(), "cleanup",
			//         Duration.ofMinutes(10), Duration.ofSeconds(30)))
			LockDefinition cleanup = LockDefinition.builder("cleanup")
					.acquireTimeout(Duration.ZERO)          // busy: skip, as ShedLock does
					.holdAtLeast(Duration.ofSeconds(30))    // lockAtLeastFor
					.build();                               // lockAtMostFor: not needed, the lease is renewed
			boolean ran = lockTemplate.tryExecute(cleanup, () -> { task.run(); });   // false: another instance runs it
			// end::shedlock-executor[]
			return ran;
		}

	}

	/** Redisson's RLock examples. */
	static class Payments {

		private final DistributedLockTemplate lockTemplate;

		long tokenSeen;

		Payments(DistributedLockTemplate lockTemplate) {
			this.lockTemplate = lockTemplate;
		}

		void lockAndUnlock() {
			// tag::redisson-lock[]
			Lock lock = lockTemplate.getLock("myLock");   // was RLock lock = redisson.getLock("myLock")
			lock.lock();                                  // waits as long as it takes, as RLock.lock(): no acquire-timeout
			try {
				pay();
			}
			finally {
				lock.unlock();
			}
			// end::redisson-lock[]
		}

		boolean tryLockWithLease() throws InterruptedException {
			// tag::redisson-try-lock[]
			// was lock.tryLock(100, 10, TimeUnit.SECONDS): wait up to 100 s, then hold for 10 s without a watchdog
			LockDefinition tenSeconds = LockDefinition.builder("myLock")
					.acquireTimeout(Duration.ofSeconds(100))
					.lease(Duration.ofSeconds(10))
					.autoRenew(false)
					.build();
			Optional<LockHandle> acquired = lockTemplate.tryAcquire(tenSeconds);
			if (acquired.isPresent()) {
				try (LockHandle lock = acquired.get()) {   // close() unlocks, from any thread
					pay();
				}
			}
			// end::redisson-try-lock[]
			return acquired.isPresent();
		}

		void fenced() {
			// tag::redisson-fenced[]
			// was RFencedLock lock = redisson.getFencedLock("myLock"); Long token = lock.lockAndGetToken();
			try (LockHandle lock = lockTemplate.acquire(LockDefinition.of("myLock"))) {   // every lock has a token
				long token = lock.fencingToken();   // greater than every earlier holder's of "myLock"
				write(token);
			}
			// end::redisson-fenced[]
		}

		private void pay() {
		}

		private void write(long token) {
			this.tokenSeen = token;
		}

	}

	/** Redisson's RReadWriteLock, as an annotation and as a view. */
	static class Prices {

		private final DistributedLockTemplate lockTemplate;

		Prices(DistributedLockTemplate lockTemplate) {
			this.lockTemplate = lockTemplate;
		}

		// tag::redisson-read-write[]
		@DistributedLock(name = "price", key = "#sku", type = LockType.READ)    // was getReadWriteLock(...).readLock()
		public long price(String sku) {
			return 100;
		}

		@DistributedLock(name = "price", key = "#sku", type = LockType.WRITE)   // was getReadWriteLock(...).writeLock()
		public void reprice(String sku, long cents) {
		}

		void withTheView(String sku) {
			ReadWriteLock rw = lockTemplate.getReadWriteLock("price:" + sku);   // the same lock as the methods'
			rw.readLock().lock();
			try { /* read */ } finally { rw.readLock().unlock(); }
		}
		// end::redisson-read-write[]

	}

	/** Redisson's RPermitExpirableSemaphore. */
	static class Exports {

		private final DistributedLockTemplate lockTemplate;

		final AtomicInteger inside = new AtomicInteger();

		int mostInside;

		Exports(DistributedLockTemplate lockTemplate) {
			this.lockTemplate = lockTemplate;
		}

		// tag::redisson-semaphore-annotation[]
		@DistributedLock(name = "export", key = "#tenant", permits = 3)   // at most 3 exports per tenant at once
		public void export(String tenant) {
			exportAll(tenant);
		}
		// end::redisson-semaphore-annotation[]

		Optional<LockHandle> permit() {
			// tag::redisson-semaphore[]
			// was semaphore.trySetPermits(3); String permitId = semaphore.tryAcquire(5, 60, TimeUnit.SECONDS);
			LockDefinition partnerApi = LockDefinition.builder("partner-api")
					.permits(3)                               // the count comes with every acquisition
					.acquireTimeout(Duration.ofSeconds(5))
					.lease(Duration.ofSeconds(60))            // a permit that ends after 60 s,
					.autoRenew(false)                         // as Redisson's lease time; renewed without this
					.build();
			Optional<LockHandle> permit = lockTemplate.tryAcquire(partnerApi);
			// ... permit.get().close() releases it, from any thread (was semaphore.release(permitId))
			// end::redisson-semaphore[]
			return permit;
		}

		/** The most exports that ran at once; a method, since callers get the bean's proxy. */
		synchronized int mostInside() {
			return this.mostInside;
		}

		private void exportAll(String tenant) {
			int now = this.inside.incrementAndGet();
			synchronized (this) {
				this.mostInside = Math.max(this.mostInside, now);
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.inside.decrementAndGet();
			}
		}

	}

	/** Spring Integration's RedisLockRegistry, replaced by the starter's LockRegistry. */
	static class Invoices {

		private final LockRegistry<?> lockRegistry;

		Invoices(LockRegistry<?> lockRegistry) {
			this.lockRegistry = lockRegistry;
		}

		String invoice(long id) throws Exception {
			// tag::integration-registry[]
			// was @Bean RedisLockRegistry lockRegistry(RedisConnectionFactory connectionFactory) {
			//         return new RedisLockRegistry(connectionFactory, "invoices", 60_000); }
			// now no bean of your own: the starter's LockRegistry, on the same Redis keys as lockTemplate.getLock(key)
			String pdf = lockRegistry.executeLocked("invoice:" + id, Duration.ofSeconds(5), () -> render(id));
			// end::integration-registry[]
			return pdf;
		}

		private String render(long id) {
			return "invoice " + id;
		}

	}

}
