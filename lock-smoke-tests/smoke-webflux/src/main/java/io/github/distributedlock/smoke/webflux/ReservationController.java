package io.github.distributedlock.smoke.webflux;

import java.time.Duration;

import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /stock/{sku}/reserve} through the annotated {@code Mono} method, {@code POST /stock/{sku}/restock}
 * through {@link ReactiveDistributedLockTemplate}: both lock {@code stock:<sku>}, so they exclude each other.
 */
@RestController
class ReservationController {

	private final StockService stock;

	private final ReactiveDistributedLockTemplate locks;

	ReservationController(StockService stock, ReactiveDistributedLockTemplate locks) {
		this.stock = stock;
		this.locks = locks;
	}

	@PostMapping("/stock/{sku}/reserve")
	Mono<String> reserve(@PathVariable String sku) {
		return this.stock.reserve(sku);
	}

	@PostMapping("/stock/{sku}/restock")
	Mono<String> restock(@PathVariable String sku) {
		LockDefinition lock = LockDefinition.builder("stock:" + sku).acquireTimeout(Duration.ofSeconds(30)).build();
		return this.locks.execute(lock, this.stock.update(sku, "restocked"));
	}

}
