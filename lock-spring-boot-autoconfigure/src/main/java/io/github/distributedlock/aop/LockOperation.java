package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.annotation.OnLockLoss;
import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.expression.Expression;

/**
 * A {@code @DistributedLock} annotation resolved for one method of one target class: placeholders resolved,
 * durations parsed and checked, key expressions parsed. Built once per method and cached.
 *
 * @param description the method as named in error messages, such as {@code OrderService.pay(Order)}
 * @param method the most specific method, whose parameter names the expressions see
 * @param methodKey the cache key of the expressions
 * @param name the lock name
 * @param keySources the key expressions as written
 * @param keys the parsed key expressions, in the order written
 * @param type the lock type
 * @param lease the lease, or {@code null} for the template's default
 * @param acquireTimeout the acquire timeout, or {@code null} for the template's default
 * @param autoRenew whether the lease is renewed
 * @param onFailure what to do when not acquired
 * @param holdAtLeast the minimum hold (zero or positive), or {@code null} for none
 * @param returnKind how the method gives its result, which decides how long the lock is held
 * @param scheduled how the {@code @Scheduled} defaults applied, or {@code null} if the method is not scheduled
 * @param onLost what happens to the running method when the lock is lost, or {@code null} for the template's
 * default (the annotation's {@code NONE})
 * @param permits how many owners may hold one key at once (1 for a lock, more for a semaphore)
 */
record LockOperation(String description, Method method, AnnotatedElementKey methodKey, String name,
		List<String> keySources, List<Expression> keys, LockType type, @Nullable Duration lease,
		@Nullable Duration acquireTimeout, boolean autoRenew, OnLockFailure onFailure,
		@Nullable Duration holdAtLeast, ReturnKind returnKind, @Nullable ScheduledLock scheduled,
		@Nullable OnLockLoss onLost, int permits) {

	/**
	 * What a skipped call of a method that returns a plain value returns: an empty {@link Optional} for methods
	 * declared to return one, else {@code null}. (A stage completes with {@code null}, a {@code Mono} or
	 * {@code Flux} is empty.)
	 */
	@Nullable Object skippedResult() {
		return (this.method.getReturnType() == Optional.class) ? Optional.empty() : null;
	}

}
