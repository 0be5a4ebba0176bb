package io.github.distributedlock.smoke.kotlin

import io.github.distributedlock.annotation.DistributedLock
import io.github.distributedlock.core.LockDefinition
import io.github.distributedlock.core.ReactiveDistributedLockTemplate
import io.github.distributedlock.coroutines.withLock
import kotlinx.coroutines.delay
import kotlinx.coroutines.reactive.awaitSingle
import org.slf4j.LoggerFactory
import org.springframework.beans.factory.annotation.Value
import org.springframework.data.redis.core.ReactiveStringRedisTemplate
import org.springframework.stereotype.Service
import java.time.Duration

/**
 * Posts to an account, one posting of an account at a time across every instance, without blocking a thread;
 * counts the callers inside in Redis.
 */
@Service
class Ledger(
	private val redis: ReactiveStringRedisTemplate,
	private val locks: ReactiveDistributedLockTemplate,
	@Value("\${smoke.instance:kotlin}") private val instance: String,
) {

	@DistributedLock(name = "ledger", key = ["#account"], acquireTimeout = "30s")
	suspend fun post(account: String): String = section(account, "suspend fun")

	suspend fun postWithLock(account: String): String {
		val lock = LockDefinition.builder("ledger:$account").acquireTimeout(Duration.ofSeconds(30)).build()
		return locks.withLock(lock) { section(account, "withLock") }
	}

	private suspend fun section(account: String, how: String): String {
		val inside = redis.opsForValue().increment("smoke:inside:$account").awaitSingle()
		logger.info("locked section entered by {}: inside={} ({})", instance, inside, how)
		delay(100)   // the posting's work
		redis.opsForValue().decrement("smoke:inside:$account").awaitSingle()
		logger.info("locked section left by {}", instance)
		return "$how $account by $instance"
	}

	private companion object {
		val logger = LoggerFactory.getLogger(Ledger::class.java)
	}

}
