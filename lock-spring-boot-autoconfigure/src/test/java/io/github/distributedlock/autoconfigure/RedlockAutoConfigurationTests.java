package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.aop.InvalidLockAnnotationException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.redlock.RedlockLockClient;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.ExclusionChecker;
import io.github.distributedlock.test.RedlockApplications;
import io.github.distributedlock.test.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code distributed-lock.store=redlock} end to end on 3 real {@code redis-server} processes: two application
 * contexts (two instances) contend through {@code @DistributedLock} under the exclusion checker, an asynchronous
 * method acquires without blocking, a {@code @Scheduled} job's minimum hold ({@code holdAtLeast}) keeps its lock
 * taken after it returns, and the startup refuses what the store cannot serve (semaphores, read/write locks), too
 * few nodes, a node listed twice, and a missing Lettuce, each naming what is wrong.
 */
class RedlockAutoConfigurationTests {

	private static final ExclusionChecker checker = new ExclusionChecker();

	private static ApplicationContextRunner runner(String... nodes) {
		return RedlockApplications.runner("250ms", nodes);
	}

	private static String[] urls() {
		return RedlockApplications.urls(RedlockApplications.sharedNodes());
	}

	@Test
	void twoInstancesContendingThroughTheAnnotationNeverOverlap() {
		ApplicationContextRunner runner = runner(urls()).withBean(Job.class);
		runner.run((first) -> runner.run((second) -> {
			assertThat(first.getBean(LockClient.class)).isInstanceOf(RedlockLockClient.class);
			assertThat(first.getBean(LockClient.class).capabilities().store()).isEqualTo("redlock");
			List<Job> jobs = List.of(first.getBean(Job.class), second.getBean(Job.class));
			Concurrently.run(6, 120, (thread) -> {
				for (int i = 0; i < 10; i++) {
					checker.call(jobs.get(thread % 2)::run);
				}
			});
			assertThat(checker.problems(1.0)).as(checker.summary()).isEmpty();
			assertThat(checker.bodies()).isEqualTo(60);
			assertThat(jobs.get(0).later().get(10, TimeUnit.SECONDS)).isEqualTo("done later");
		}));
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void theStartupLineNamesTheNodesAndTheQuorumButNoPassword(CapturedOutput output) {
		List<RedisServer> nodes = RedlockApplications.sharedNodes();
		String[] urls = urls();
		// a password in a URL is never logged (this node then refuses the AUTH and goes unchecked: 2 still vote)
		urls[2] = "redis://:not-logged@" + nodes.get(2).host() + ":" + nodes.get(2).port();
		runner(urls).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getOut()).contains("Distributed locks on Redlock over 3 independent Redis primaries "
					+ "(quorum 2): " + nodes.get(0).host() + ":" + nodes.get(0).port() + ", " + nodes.get(1).host()
					+ ":" + nodes.get(1).port() + ", " + nodes.get(2).host() + ":" + nodes.get(2).port()
					+ ", key prefix 'lock:'")
				.contains("node timeout 250ms")
				.doesNotContain("not-logged");
		});
	}

	@Test
	void semaphoresAndReadWriteLocksAreRefusedAtStartupNamingTheStore() {
		runner(urls()).withBean(Semaphore.class)
			.run((context) -> assertThat(context.getStartupFailure()).isInstanceOf(InvalidLockAnnotationException.class)
				.hasMessageContaining("permits")
				.hasMessageContaining("'redlock'"));
		runner(urls()).withBean(Reader.class)
			.run((context) -> assertThat(context.getStartupFailure()).isInstanceOf(InvalidLockAnnotationException.class)
				.hasMessageContaining("'redlock'"));
	}

	@Test
	void aScheduledJobWithAMinimumHoldStartsAndKeepsItsLockTakenAfterItReturns() {
		runner(urls()).withBean(PeriodicJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(PeriodicJob.class).run()).isEqualTo("ran");
			DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
			// within the minimum hold the lock stays taken, by nobody: not even this thread gets it
			assertThat(template.tryAcquire(LockDefinition.builder("periodic").acquireTimeout(Duration.ZERO).build()))
				.isEmpty();
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
				Optional<LockHandle> after = template
					.tryAcquire(LockDefinition.builder("periodic").acquireTimeout(Duration.ZERO).build());
				after.ifPresent(LockHandle::close);
				return after.isPresent();
			});
		});
	}

	@Test
	void fewerThanThreeNodesAreRefusedNamingTheProperty() {
		runner(urls()[0], urls()[1]).run((context) -> assertThat(context).getFailure()
			.rootCause()
			.isInstanceOf(InvalidLockPropertyException.class)
			.hasMessageContaining("at least 3"));
	}

	@Test
	void aNodeListedTwiceIsRefusedNamingIt() {
		String again = "redis://localhost:" + RedlockApplications.sharedNodes().get(0).port();
		runner(urls()[0], again, urls()[1]).run((context) -> assertThat(context).getFailure()
			.rootCause()
			.isInstanceOf(InvalidLockPropertyException.class)
			.hasMessageContaining("localhost:" + RedlockApplications.sharedNodes().get(0).port())
			.hasMessageContaining("one Redis server"));
	}

	@Test
	void withoutLettuceTheStartupSaysSo() {
		runner(urls()).withClassLoader(new FilteredClassLoader("io.lettuce"))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidLockPropertyException.class)
				.hasMessageContaining("Lettuce"));
	}

	static class Job {

		@DistributedLock(name = "job")
		public void run() {
			checker.body(LockContext.current().fencingToken());
		}

		@DistributedLock(name = "job")
		public CompletableFuture<String> later() {
			return CompletableFuture.completedFuture("done later");
		}

	}

	static class PeriodicJob {

		// a fixedRate job fires at each instance's own phase: the minimum hold keeps the others out of the period
		@Scheduled(fixedRate = 3_600_000)
		@DistributedLock(name = "periodic", holdAtLeast = "2s")
		public String run() {
			return "ran";
		}

	}

	static class Semaphore {

		@DistributedLock(name = "slots", permits = 2)
		public void run() {
		}

	}

	static class Reader {

		@DistributedLock(name = "doc", type = LockType.READ)
		public void read() {
		}

	}

}
