package io.github.distributedlock.docs;

import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The documentation's snippets on asynchronous and reactive locks, compiled.
 */
@SuppressWarnings("unused")
class AsyncSnippets {

	record Receipt(String order) {
	}

	record Page(int number) {
	}

	interface Payments {

		CompletableFuture<Receipt> charge(String order, long fencingToken);

		Mono<Receipt> chargeReactively(String order, long fencingToken);

	}

	private Payments payments;

	private DistributedLockTemplate lockTemplate;

	private ReactiveDistributedLockTemplate reactiveLockTemplate;

	// tag::future[]
	@DistributedLock(name = "order", key = "#order")
	public CompletableFuture<Receipt> pay(String order) {                // held until the future completes
		return payments.charge(order, LockContext.current().fencingToken());
	}
	// end::future[]

	// tag::mono[]
	@DistributedLock(name = "order", key = "#order", onFailure = OnLockFailure.SKIP)
	public Mono<Receipt> payReactively(String order) {                   // runs at subscription, under the lock
		return Mono.deferContextual((context) ->
				payments.chargeReactively(order, context.get(LockHandle.class).fencingToken()));
	}
	// end::mono[]

	// tag::flux[]
	@DistributedLock(name = "report", key = "#id")
	public Flux<Page> render(String id) {                                // held until the last page
		return Flux.range(1, 3).map(Page::new);
	}
	// end::flux[]

	void programmatic(String order) {
		// tag::templates[]
		CompletableFuture<Receipt> paid = lockTemplate.executeAsync(LockDefinition.of("order:" + order),
				() -> payments.charge(order, LockContext.current().fencingToken()));

		Mono<Receipt> paidReactively = reactiveLockTemplate.execute("order:" + order,
				Mono.deferContextual((context) ->
						payments.chargeReactively(order, context.get(LockHandle.class).fencingToken())));
		// end::templates[]
	}

}
