/*
 * Kotlin coroutines on the reactive template: a suspending API for programmatic locks. The annotation needs
 * none of this: Spring AOP runs a @DistributedLock suspend fun as the Mono it makes of it.
 */
@file:JvmName("LockCoroutines")

package io.github.distributedlock.coroutines

import io.github.distributedlock.core.LockDefinition
import io.github.distributedlock.core.LockHandle
import io.github.distributedlock.core.ReactiveDistributedLockTemplate
import kotlinx.coroutines.Job
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.reactive.awaitSingle
import kotlinx.coroutines.reactor.ReactorContext
import kotlinx.coroutines.reactor.mono

/**
 * Runs [block] under the lock of [definition], suspending (no thread blocked) while it waits for the lock,
 * and releases the lock when [block] returns or throws, or when the calling coroutine is cancelled. [block]
 * runs in the caller's coroutine context (its dispatcher); inside it, [currentLockHandle] gives the lock's
 * handle and its fencing token. Reentrant: a [withLock] nested in [block] on the same key re-enters the lock.
 *
 * @param definition the lock: key, type, lease, acquire timeout (the template's defaults where it sets none)
 * @param block the work to do while holding the lock; its result may be `null`
 * @return what [block] returned, once the lock is released
 * @throws io.github.distributedlock.core.LockAcquisitionException if the lock was not acquired within the
 * acquire timeout ([block] does not run)
 * @throws io.github.distributedlock.core.LockLostException if the lock was lost before the release (after a
 * [block] that threw, added to its exception as suppressed)
 * @throws kotlinx.coroutines.CancellationException if the coroutine was cancelled; the lock is then released, or
 * the wait for it given up
 */
suspend fun <T> ReactiveDistributedLockTemplate.withLock(definition: LockDefinition, block: suspend () -> T): T {
	// the caller's context, less its Job: the subscription, not a parent job, cancels the block (as Spring's
	// CoroutinesUtils runs suspending functions)
	val context = currentCoroutineContext().minusKey(Job)
	// a box, because a Mono has no null element
	val result = execute(definition, mono(context) { Result(block()) }).awaitSingle()
	return result.value
}

/**
 * Runs [block] under the reentrant lock of [key] with the template's defaults (lease, acquire timeout); see
 * [withLock] with a [LockDefinition].
 *
 * @param key the lock key, such as `"invoice:42"`
 * @param block the work to do while holding the lock
 * @return what [block] returned, once the lock is released
 * @throws io.github.distributedlock.core.LockAcquisitionException if the lock was not acquired in time
 * @throws io.github.distributedlock.core.LockLostException if the lock was lost before the release
 */
suspend fun <T> ReactiveDistributedLockTemplate.withLock(key: String, block: suspend () -> T): T =
	withLock(LockDefinition.of(key), block)

/**
 * Returns the handle of the innermost lock that the calling coroutine holds through [withLock] or a
 * `@DistributedLock` suspend fun: its key, its fencing token, whether it is known to be lost. No round trip.
 *
 * @return the handle
 * @throws IllegalStateException if the coroutine holds no such lock
 */
suspend fun currentLockHandle(): LockHandle =
	currentCoroutineContext()[ReactorContext]?.context?.getOrDefault<LockHandle>(LockHandle::class.java, null)
		?: throw IllegalStateException("This coroutine holds no distributed lock: currentLockHandle() works inside "
				+ "withLock { } and @DistributedLock suspend functions")

/** A result that may be null, as the element of a Mono. */
private class Result<T>(val value: T)
