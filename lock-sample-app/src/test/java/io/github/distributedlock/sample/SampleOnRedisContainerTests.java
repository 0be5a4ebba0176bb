package io.github.distributedlock.sample;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample application against a real Redis in a Testcontainers container, which
 * {@link ServiceConnection @ServiceConnection} connects it to (no {@code spring.data.redis.*} needed): how an
 * application tests its locked code on Redis. Skipped, not failed, where Docker is missing.
 */
@SpringBootTest(properties = "sample.lottery-on-startup=false")
@Testcontainers(disabledWithoutDocker = true)
class SampleOnRedisContainerTests {

	@Container
	@ServiceConnection(name = "redis")
	static final GenericContainer<?> redis = new GenericContainer<>(DockerImageName.parse("redis:7-alpine"))
		.withExposedPorts(6379);

	@Autowired
	private StockService stock;

	@Autowired
	private LotteryService lottery;

	@Test
	void concurrentBuyersNeverOversell() throws Exception {
		String sku = "sku-" + UUID.randomUUID();
		int units = 40;
		this.stock.restock(sku, units);
		AtomicInteger sold = new AtomicInteger();
		ExecutorService buyers = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> done = IntStream.range(0, 8).<Future<?>>mapToObj((buyer) -> buyers.submit(() -> {
				for (int i = 0; i < 10; i++) {
					if (this.stock.reserve(sku, 1)) {
						sold.incrementAndGet();
					}
				}
			})).toList();
			for (Future<?> buyer : done) {
				buyer.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			buyers.shutdownNow();
		}
		assertThat(sold).hasValue(units);
		assertThat(this.stock.stock(sku)).isZero();
	}

	@Test
	void aDrawRunsOnceAndALaterCallFindsItDone() {
		String drawId = "draw-" + UUID.randomUUID();
		List<String> tickets = List.of("a", "b", "c", "d");
		assertThat(this.lottery.draw(drawId, tickets, 2)).hasValueSatisfying((winners) -> assertThat(winners).hasSize(2));
		assertThat(this.lottery.draw(drawId, tickets, 2)).isEmpty();
		assertThat(this.lottery.storedDraws(drawId, 2)).isEqualTo(1);
	}

}
