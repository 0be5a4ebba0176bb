package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.test.Occupancy;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A bean whose methods call "a partner API" at most three at once per key across every instance: a semaphore
 * through {@code @DistributedLock(permits = 3)}, in its blocking, {@code CompletableFuture} and {@code Mono}
 * forms. Each call records itself in the caller's {@link Occupancy} from inside.
 */
class PartnerApi {

	static final int PERMITS = 3;

	private final Executor completer;

	PartnerApi(Executor completer) {
		this.completer = completer;
	}

	/**
	 * Calls the partner API.
	 * @param seenBefore the occupancy's greatest token before the call began to acquire
	 * @return the fencing token of the call's permit
	 */
	@DistributedLock(name = "partner", key = "#id", permits = PERMITS)
	public long call(String id, Occupancy occupancy, long seenBefore) {
		long token = LockContext.current().fencingToken();
		occupancy.enter(token, seenBefore);
		Occupancy.work(3);
		occupancy.exit();
		return token;
	}

	/** Calls it asynchronously: the permit is held until the returned future completes, on another thread. */
	@DistributedLock(name = "partner", key = "#id", permits = PERMITS)
	public CompletableFuture<Long> callAsync(String id, Occupancy occupancy) {
		long token = LockContext.current().fencingToken();
		occupancy.enter();
		return CompletableFuture.supplyAsync(() -> {
			Occupancy.work(10);
			occupancy.exit();
			return token;
		}, this.completer);
	}

	/** Calls it reactively: the permit is taken at subscription and held until the {@code Mono} ends. */
	@DistributedLock(name = "partner", key = "#id", permits = PERMITS)
	public Mono<String> callReactive(String id, Occupancy occupancy) {
		// doOnSuccess runs before the completion goes downstream, where it releases the permit
		return Mono.fromRunnable(occupancy::enter)
			.then(Mono.delay(Duration.ofMillis(10)))
			.then(Mono.just("called"))
			.doOnSuccess((result) -> occupancy.exit());
	}

	@Configuration(proxyBeanMethods = false)
	static class PartnerConfiguration {

		@Bean(destroyMethod = "shutdownNow")
		ExecutorService partnerCompleter() {
			return Executors.newFixedThreadPool(4);
		}

		@Bean
		PartnerApi partnerApi(ExecutorService partnerCompleter) {
			return new PartnerApi(partnerCompleter);
		}

	}

}
