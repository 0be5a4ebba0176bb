package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.aop.InvalidLockAnnotationException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.ForwardingLockClient;
import io.github.distributedlock.core.LockCapabilities;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import io.github.distributedlock.local.LocalLockClient;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A store declares what it supports ({@code LockClient.capabilities()}): the templates refuse a request that needs
 * more before it reaches the store, naming the store, and the startup refuses a {@code @DistributedLock} method
 * that asks for it, naming the method, the attribute and the store. A store of plain exclusive locks (a third
 * store's first step) serves what it supports.
 */
class StoreCapabilitiesTests {

	private final PlainStore store = new PlainStore();

	private final DistributedLockTemplate template = new DistributedLockTemplate(this.store, Duration.ofSeconds(30),
			Duration.ZERO);

	@AfterEach
	void close() {
		this.store.close();
	}

	@Test
	void aPlainExclusiveLockRunsOnAStoreThatDeclaresNothing() {
		assertThat(this.template.execute("plain:1", () -> "done")).isEqualTo("done");
		assertThat(this.store.requests).hasSize(1);
	}

	@Test
	void theTemplateRefusesWhatTheStoreLacksBeforeTheRequestReachesIt() {
		assertRefused(LockDefinition.builder("k").permits(3).build(), "semaphores");
		assertRefused(LockDefinition.builder("k").type(LockType.READ).build(), "read/write");
		assertRefused(LockDefinition.builder("k").holdAtLeast(Duration.ofSeconds(1)).build(), "minimum hold");
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.template.getReadWriteLock("k").writeLock().tryLock())
			.withMessageContaining("'plain'");
		assertThat(this.store.requests).isEmpty();
	}

	@Test
	void anAsynchronousAcquisitionOnAStoreWithoutItFailsNamingTheStore() {
		ReactiveDistributedLockTemplate reactive = new ReactiveDistributedLockTemplate(this.store,
				Duration.ofSeconds(30), Duration.ZERO);
		StepVerifier.create(reactive.execute("k", Mono.just("never")))
			.expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(UnsupportedOperationException.class)
				.hasMessageContaining("'plain'")
				.hasMessageContaining("asynchronous"))
			.verify(Duration.ofSeconds(10));
		assertThat(this.store.requests).isEmpty();
	}

	@Test
	void theStartupRefusesAnAnnotationTheStoreCannotServeNamingTheStore() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
			.withBean(PlainStore.class)
			.withBean(Exports.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).isInstanceOf(InvalidLockAnnotationException.class)
					.hasMessageContaining("Exports.export")
					.hasMessageContaining("permits")
					.hasMessageContaining("'plain'");
			});
	}

	@Test
	void theStartupRefusesAnAsynchronousMethodOnAStoreWithoutIt() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
			.withBean(PlainStore.class)
			.withBean(AsyncJob.class)
			.run((context) -> assertThat(context.getStartupFailure()).isInstanceOf(InvalidLockAnnotationException.class)
				.hasMessageContaining("return type")
				.hasMessageContaining("'plain'"));
	}

	@Test
	void theStartupAcceptsWhatTheStoreServes() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
			.withBean(PlainStore.class)
			.withBean(PlainJob.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	private void assertRefused(LockDefinition definition, String lacking) {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.template.execute(definition, () -> "never"))
			.withMessageContaining("'plain'")
			.withMessageContaining(lacking)
			.withMessageContaining("'k'");
	}

	/** A store of plain exclusive locks (on the in-JVM store), that records the requests reaching it. */
	static final class PlainStore extends ForwardingLockClient {

		final List<LockRequest> requests = new CopyOnWriteArrayList<>();

		PlainStore() {
			super(new LocalLockClient());
		}

		@Override
		public LockCapabilities capabilities() {
			return LockCapabilities.of("plain");
		}

		@Override
		public @Nullable LockHandle acquire(LockRequest request) throws InterruptedException {
			this.requests.add(request);
			return super.acquire(request);
		}

		@Override
		public CompletableFuture<@Nullable LockHandle> acquireAsync(LockRequest request) {
			this.requests.add(request);
			return super.acquireAsync(request);
		}

	}

	static class Exports {

		@DistributedLock(name = "export", permits = 3)
		public void export() {
		}

	}

	static class AsyncJob {

		@DistributedLock(name = "job")
		public CompletableFuture<String> run() {
			return CompletableFuture.completedFuture("done");
		}

	}

	static class PlainJob {

		@DistributedLock(name = "plain")
		public void run() {
		}

	}

}
