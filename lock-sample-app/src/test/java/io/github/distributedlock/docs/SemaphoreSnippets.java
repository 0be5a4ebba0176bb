package io.github.distributedlock.docs;

import java.time.Duration;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import reactor.core.publisher.Mono;

/**
 * The documentation's snippets on semaphores, compiled.
 */
@SuppressWarnings("unused")
class SemaphoreSnippets {

	record Report(String tenant) {
	}

	record Quote(String order) {
	}

	interface Partner {

		Quote quote(String order);

		Mono<Quote> quoteReactively(String order);

		void send(String order, long fencingToken);

	}

	private Partner partner;

	private DistributedLockTemplate lockTemplate;

	private ReactiveDistributedLockTemplate reactiveLockTemplate;

	private String order;

	// tag::annotation[]
	@DistributedLock(name = "export", key = "#tenant", permits = 3)   // at most 3 exports per tenant at once
	public Report export(String tenant) {                           // across every instance
		return new Report(tenant);
	}
	// end::annotation[]

	void template() {
		// tag::template[]
		LockDefinition partnerApi = LockDefinition.builder("partner-api").permits(5).build();

		Quote quote = lockTemplate.execute(partnerApi, () -> partner.quote(order));   // at most 5 calls at once

		try (LockHandle permit = lockTemplate.acquire(partnerApi)) {                   // one permit, until close()
			partner.send(order, permit.fencingToken());
		}
		// end::template[]
	}

	void reactive(LockDefinition partnerApi) {
		// tag::reactive[]
		Mono<Quote> quote = reactiveLockTemplate.execute(partnerApi,
				Mono.defer(() -> partner.quoteReactively(order)));   // waits for a permit without a thread
		// end::reactive[]
	}

	void holdAtLeast() {
		// tag::hold-at-least[]
		LockDefinition fivePerSecond = LockDefinition.builder("partner-api")
			.permits(5)
			.holdAtLeast(Duration.ofSeconds(1))   // each permit stays taken for at least 1 s after it was acquired
			.build();
		// end::hold-at-least[]
	}

}
