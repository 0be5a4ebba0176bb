package io.github.distributedlock.lost;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.local.LocalLockClient;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The handle's loss API on the in-JVM store: {@code whenLost()} when the client releases a held lock at its
 * close, never after a normal release; the confirmed lease of a hard and of an auto-renewed lease.
 */
class LocalStoreLossTests {

	@Test
	void whenLostCompletesWhenTheClientReleasesAHeldLockAtItsClose() throws Exception {
		LocalLockClient client = new LocalLockClient();
		DistributedLockTemplate template = new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ZERO);
		LockHandle held = template.acquire(LockDefinition.of("local:held"));
		LockHandle released = template.acquire(LockDefinition.of("local:released"));
		CompletableFuture<LockLostException> releasedLoss = released.whenLost().toCompletableFuture();
		released.close();
		client.close();
		assertThat(held.whenLost().toCompletableFuture().get(10, TimeUnit.SECONDS).getKey()).isEqualTo("local:held");
		assertThat(releasedLoss).isNotDone();
		assertThatThrownBy(held::close).isInstanceOf(LockLostException.class);
	}

	@Test
	void theConfirmedLeaseIsTheHardLeaseOrALeaseFromNow() {
		try (LocalLockClient client = new LocalLockClient()) {
			DistributedLockTemplate template = new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ZERO);
			Instant before = Instant.now();
			LockHandle hard = template
				.acquire(LockDefinition.builder("local:hard").lease(Duration.ofMillis(500)).autoRenew(false).build());
			assertThat(hard.leaseConfirmedUntil()).isBefore(Instant.now().plusMillis(501)).isAfter(before.plusMillis(450));
			assertThatThrownBy(() -> hard.checkHeld(Duration.ofSeconds(1))).isInstanceOf(LockLostException.class);
			hard.checkHeld(Duration.ofMillis(100));
			LockHandle renewed = template.acquire(LockDefinition.of("local:renewed"));
			renewed.checkHeld(Duration.ofSeconds(20));
			renewed.close();
			hard.close();
		}
	}

}
