package io.github.distributedlock.coroutines

import io.github.distributedlock.annotation.DistributedLock
import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration
import io.github.distributedlock.autoconfigure.ReactiveDistributedLockAutoConfiguration
import io.github.distributedlock.core.LockDefinition
import io.github.distributedlock.core.ReactiveDistributedLockTemplate
import io.github.distributedlock.test.SharedRedis
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import reactor.core.publisher.Flux
import reactor.core.publisher.Mono
import java.time.Duration
import java.util.UUID
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/**
 * A thousand waiters on one key cost no more threads as coroutines (`@DistributedLock` suspend functions) than as
 * `Mono` subscriptions of the reactive template; prints threads and acquisitions per second of both.
 */
class CoroutineWaitersTests {

	private val server = SharedRedis.server()

	/** Outside the bean: its proxy has fields of its own, which the function's code never sees. */
	private val state = WorkerState()

	private val runner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java,
				DistributedLockAutoConfiguration::class.java, ReactiveDistributedLockAutoConfiguration::class.java))
		.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
				"spring.data.redis.timeout=2s")
		.withBean(Worker::class.java, { Worker(state) })

	@Test
	fun aThousandWaitingCoroutinesHoldNoMoreThreadsThanAThousandMonos() {
		val waiters = 1000
		val threads = Executors.newFixedThreadPool(4)
		try {
			val dispatcher = threads.asCoroutineDispatcher()
			runner.run { context ->
				val reactive = context.getBean(ReactiveDistributedLockTemplate::class.java)
				val worker = context.getBean(Worker::class.java)
				val monoKey = "waiters:" + UUID.randomUUID()
				val coroutineKey = UUID.randomUUID().toString()
				val definition = LockDefinition.builder(monoKey).acquireTimeout(Duration.ofSeconds(120)).build()
				// warm both paths up, so that threads started lazily (Lettuce, schedulers) count in the baseline
				reactive.execute(definition, Mono.just(0)).block(Duration.ofSeconds(30))
				runBlocking(dispatcher) { worker.work(coroutineKey) }

				val monoThreads = Peak()
				val monoStart = System.nanoTime()
				Flux.range(0, waiters)
					.flatMap({ reactive.execute(definition, Mono.fromCallable { monoThreads.sample() }) }, waiters)
					.blockLast(Duration.ofSeconds(120))
				val monoSeconds = (System.nanoTime() - monoStart) / 1e9

				state.threads = Peak()
				val coroutineStart = System.nanoTime()
				runBlocking {
					withTimeout(120_000) {
						withContext(dispatcher) {
							(0 until waiters).map { async { worker.work(coroutineKey) } }.awaitAll()
						}
					}
				}
				val coroutineSeconds = (System.nanoTime() - coroutineStart) / 1e9

				println(String.format("%d waiters on one key: Mono %d threads more, %.0f acquisitions/s; "
						+ "suspend fun %d threads more, %.0f acquisitions/s", waiters, monoThreads.growth(),
						waiters / monoSeconds, state.threads.growth(), waiters / coroutineSeconds))
				assertThat(state.count.get()).isEqualTo(waiters + 1)
				assertThat(state.threads.growth()).`as`("threads started while %d coroutines waited", waiters)
					.isLessThan(50)
					.isLessThanOrEqualTo(monoThreads.growth() + 10)
			}
		}
		finally {
			threads.shutdownNow()
		}
	}

	/** The most threads seen, against those when it was made. */
	class Peak {
		private val before = Thread.activeCount()
		private val max = AtomicInteger(before)

		fun sample(): Int = max.accumulateAndGet(Thread.activeCount(), Math::max)

		fun growth(): Int = max.get() - before
	}

	class WorkerState {
		@Volatile
		var threads = Peak()
		val count = AtomicInteger()
	}

	/** A service with a locked suspend function; open, so that Spring can proxy it. */
	open class Worker(private val state: WorkerState) {
		@DistributedLock(name = "waiters", key = ["#key"], acquireTimeout = "120s")
		open suspend fun work(key: String) {
			state.threads.sample()
			state.count.incrementAndGet()
		}
	}

}
