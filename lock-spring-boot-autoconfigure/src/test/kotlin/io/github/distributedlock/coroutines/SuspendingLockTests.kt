package io.github.distributedlock.coroutines

import io.github.distributedlock.annotation.DistributedLock
import io.github.distributedlock.annotation.OnLockFailure
import io.github.distributedlock.aop.InvalidLockAnnotationException
import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration
import io.github.distributedlock.autoconfigure.ReactiveDistributedLockAutoConfiguration
import io.github.distributedlock.core.DistributedLockTemplate
import io.github.distributedlock.core.LockAcquisitionException
import io.github.distributedlock.core.LockDefinition
import io.github.distributedlock.core.ReactiveDistributedLockTemplate
import io.github.distributedlock.test.SharedRedis
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.time.Duration
import java.util.UUID
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/**
 * `@DistributedLock` on Kotlin `suspend` functions and the coroutine API, in two applications on a real
 * redis-server: waits for the lock without blocking a thread, holds it until the function returns, releases it
 * when the coroutine is cancelled, and `SKIP` returns `null`.
 */
class SuspendingLockTests {

	private val server = SharedRedis.server()

	private val runner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java,
				DistributedLockAutoConfiguration::class.java, ReactiveDistributedLockAutoConfiguration::class.java))
		.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
				"distributed-lock.acquire-timeout=10s", "spring.data.redis.timeout=2s")

	private val id = UUID.randomUUID().toString()

	private val state = SharedState()

	private fun held(): Boolean = SharedRedis.redis().hasKey("lock:counter:$id")

	private fun runTwo(work: suspend CoroutineScope.(AssertableApplicationContext, AssertableApplicationContext) -> Unit) {
		val withCounter = runner.withBean(Counter::class.java, { Counter(state) })
		withCounter.run { first -> withCounter.run { second -> runBlocking { work(first, second) } } }
	}

	@Test
	fun aThousandCoroutinesOnOneKeyFromTwoInstancesAndFourThreadsNeverOverlapAndLoseNoUpdate() {
		val threads = Executors.newFixedThreadPool(4)
		try {
			val dispatcher = threads.asCoroutineDispatcher()
			runTwo { first, second ->
				val counters = listOf(first.getBean(Counter::class.java), second.getBean(Counter::class.java))
				// four threads carry a thousand coroutines that all wait for one lock: a wait that blocked its thread
				// would leave the others no thread to run on, and the test would time out
				withTimeout(120_000) {
					withContext(dispatcher) {
						(0 until 1000).map { i -> async { counters[i % 2].increment(id) } }.awaitAll()
					}
				}
			}
			assertThat(state.maxActive.get()).`as`("holders at once").isEqualTo(1)
			assertThat(state.value).`as`("increments kept").isEqualTo(1000)
			assertThat(held()).isFalse()
		}
		finally {
			threads.shutdownNow()
		}
	}

	@Test
	fun cancellingTheCoroutineReleasesTheLock() = runTwo { first, second ->
		val holding = CompletableDeferred<Unit>()
		val job = launch { first.getBean(Counter::class.java).holdUntilCancelled(id, holding) }
		withTimeout(10_000) { holding.await() }
		assertThat(held()).isTrue()
		val other = second.getBean(DistributedLockTemplate::class.java).getLock("counter:$id")
		assertThat(other.tryLock()).isFalse()
		job.cancelAndJoin()
		await().atMost(Duration.ofSeconds(5)).until { !held() }
		assertThat(other.tryLock()).isTrue()
		other.unlock()
	}

	@Test
	fun skipReturnsNullWithoutRunningTheFunctionAndThrowGivesTheAcquisitionFailure() = runTwo { first, second ->
		val holding = CompletableDeferred<Unit>()
		val job = launch { first.getBean(Counter::class.java).holdUntilCancelled(id, holding) }
		withTimeout(10_000) { holding.await() }
		val other = second.getBean(Counter::class.java)
		assertThat(other.incrementIfFree(id)).isNull()
		assertThatExceptionOfType(LockAcquisitionException::class.java).isThrownBy {
			runBlocking { other.incrementOrFail(id) }
		}
		assertThat(state.value).isZero()
		job.cancelAndJoin()
		await().atMost(Duration.ofSeconds(5)).until { !held() }
		assertThat(other.incrementIfFree(id)).isEqualTo(1)
	}

	@Test
	fun withLockHoldsTheLockForItsBlockGivesItsHandleAndReentersNested() = runTwo { first, second ->
		val locks = first.getBean(ReactiveDistributedLockTemplate::class.java)
		val other = second.getBean(DistributedLockTemplate::class.java).getLock("counter:$id")
		val tokens = locks.withLock("counter:$id") {
			assertThat(held()).isTrue()
			assertThat(other.tryLock()).isFalse()
			val outer = currentLockHandle().fencingToken()
			val inner = locks.withLock(LockDefinition.builder("counter:$id").acquireTimeout(Duration.ZERO).build()) {
				currentLockHandle().fencingToken()
			}
			outer to inner
		}
		assertThat(tokens.first).isPositive().isEqualTo(tokens.second)
		assertThat(held()).isFalse()
		assertThat(locks.withLock("counter:$id") { null as String? }).isNull()
	}

	@Test
	fun cancellingAWithLockReleasesItsLock() = runTwo { first, _ ->
		val locks = first.getBean(ReactiveDistributedLockTemplate::class.java)
		val holding = CompletableDeferred<Unit>()
		val job = launch {
			locks.withLock("counter:$id") {
				holding.complete(Unit)
				awaitCancellation()
			}
		}
		withTimeout(10_000) { holding.await() }
		assertThat(held()).isTrue()
		job.cancelAndJoin()
		await().atMost(Duration.ofSeconds(5)).until { !held() }
	}

	@Test
	fun withJedisALockedSuspendFunctionFailsTheStartupNamingIt() {
		runner.withPropertyValues("spring.data.redis.client-type=jedis")
			.withBean(Counter::class.java, { Counter(state) })
			.run { context ->
				assertThat(context).hasFailed()
				val failure = context.startupFailure
				val invalid = generateSequence(failure as Throwable?) { it.cause }
					.filterIsInstance<InvalidLockAnnotationException>().firstOrNull()
				assertThat(invalid).`as`("the startup failure, or one of its causes").isNotNull()
				assertThat(invalid!!.value).isEqualTo("suspend fun")
				assertThat(invalid.reason).contains("a suspend fun is locked without blocking a thread")
			}
	}

	@Test
	fun currentLockHandleOutsideALockSaysSo() {
		assertThatExceptionOfType(IllegalStateException::class.java)
			.isThrownBy { runBlocking { currentLockHandle() } }
			.withMessageContaining("holds no distributed lock")
	}

	class SharedState {
		val active = AtomicInteger()
		val maxActive = AtomicInteger()
		@Volatile
		var value = 0
	}

	/** A service with locked suspend functions; open, so that Spring can proxy it. */
	open class Counter(private val state: SharedState) {

		@DistributedLock(name = "counter", key = ["#id"], acquireTimeout = "60s")
		open suspend fun increment(id: String) {
			state.maxActive.accumulateAndGet(state.active.incrementAndGet(), Math::max)
			val read = state.value
			yield() // let other coroutines in, if the lock lets them
			state.value = read + 1
			state.active.decrementAndGet()
		}

		@DistributedLock(name = "counter", key = ["#id"])
		open suspend fun holdUntilCancelled(id: String, holding: CompletableDeferred<Unit>) {
			holding.complete(Unit)
			awaitCancellation()
		}

		@DistributedLock(name = "counter", key = ["#id"], acquireTimeout = "0", onFailure = OnLockFailure.SKIP)
		open suspend fun incrementIfFree(id: String): Int? {
			state.value++
			return state.value
		}

		@DistributedLock(name = "counter", key = ["#id"], acquireTimeout = "0")
		open suspend fun incrementOrFail(id: String): Int {
			state.value++
			return state.value
		}
	}

}
