package io.github.distributedlock.core;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.local.LocalLockClient;
import io.github.distributedlock.local.LocalLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The template's callback API as the compiler sees it. This file compiles only because a callback's checked
 * exception is a type parameter: each {@code catch (IOException ex)} below is an error ("exception IOException
 * is never thrown in body of corresponding try statement") when the template does not declare it. The lambdas
 * that compiled before (no checked exception, a value, a block returning nothing) still compile.
 */
class CheckedCallbackTests {

	private final LocalLockClient client = new LocalLockClient(new LocalLockStore(), "lock:");

	private final DistributedLockTemplate locks = new DistributedLockTemplate(this.client, Duration.ofSeconds(30),
			Duration.ZERO);

	private final AtomicInteger ran = new AtomicInteger();

	@AfterEach
	void close() {
		this.client.close();
	}

	@Test
	void aCheckedExceptionOfTheCallbackCanBeCaught() {
		LockDefinition definition = LockDefinition.of("file:1");
		String caught;
		try {
			this.locks.execute(definition, () -> writeFile(true));
			caught = "nothing";
		}
		catch (IOException ex) {
			caught = ex.getMessage();
		}
		assertThat(caught).isEqualTo("disk full");
		assertThat(this.locks.tryAcquire(definition)).isPresent().get().satisfies(LockHandle::close);
	}

	@Test
	void aCheckedExceptionOfCodeReturningNothingCanBeCaught() {
		String caught;
		try {
			this.locks.execute("file:2", () -> {
				writeFile(true);
			});
			caught = "nothing";
		}
		catch (IOException ex) {
			caught = ex.getMessage();
		}
		assertThat(caught).isEqualTo("disk full");
	}

	@Test
	void lambdasWithoutCheckedExceptionsNeedNoCatch() {
		String value = this.locks.execute("plain", () -> "value");
		this.locks.execute("plain", () -> {
			this.ran.incrementAndGet();
		});
		this.locks.execute(LockDefinition.of("plain"), this.ran::incrementAndGet);
		LockCallback<String, RuntimeException> declared = () -> "declared";
		assertThat(value).isEqualTo("value");
		assertThat(this.locks.execute("plain", declared)).isEqualTo("declared");
		assertThat(this.ran).hasValue(2);
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.locks.execute("plain", () -> {
			throw new IllegalStateException("unchecked");
		}));
	}

	@Test
	void tryExecuteRunsTheCallbackOrSuppliesTheFallbackForOneKey() throws Exception {
		LockDefinition definition = LockDefinition.builder("report").acquireTimeout(Duration.ZERO).build();
		assertThat(this.locks.tryExecute(definition, () -> "ran", () -> "skipped")).isEqualTo("ran");
		assertThat(this.locks.tryExecute(definition, () -> {
			this.ran.incrementAndGet();
		})).isTrue();
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> this.locks.execute(definition, () -> {
			held.countDown();
			awaitUninterruptibly(done);
		}));
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		try {
			assertThat(this.locks.tryExecute(definition, () -> "ran", () -> "skipped")).isEqualTo("skipped");
			assertThat(this.locks.tryExecute(definition, () -> {
				this.ran.incrementAndGet();
			})).isFalse();
		}
		finally {
			done.countDown();
		}
		holder.get(10, TimeUnit.SECONDS);
		assertThat(this.ran).hasValue(1);
	}

	@Test
	void aCheckedExceptionOfTryExecuteAndExecuteAllCanBeCaught() {
		int caught = 0;
		try {
			this.locks.tryExecute(LockDefinition.of("a"), () -> writeFile(true), () -> null);
		}
		catch (IOException ex) {
			caught++;
		}
		try {
			this.locks.executeAll(List.of(LockDefinition.of("a"), LockDefinition.of("b")), () -> writeFile(true));
		}
		catch (IOException ex) {
			caught++;
		}
		try {
			this.locks.executeAsync(LockDefinition.of("c"), () -> {
				writeFile(true);
				return CompletableFuture.completedFuture("never");
			});
		}
		catch (IOException ex) {
			caught++;
		}
		assertThat(caught).isEqualTo(3);
	}

	private static void awaitUninterruptibly(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static String writeFile(boolean fail) throws IOException {
		if (fail) {
			throw new IOException("disk full");
		}
		return "written";
	}

}
