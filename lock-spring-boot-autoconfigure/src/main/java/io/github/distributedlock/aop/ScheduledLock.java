package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Set;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;

/**
 * What a {@code @DistributedLock} on a {@code @Scheduled} method does differently: every instance starts the job
 * at the same time, so an instance that loses the lock must skip the period, not wait and run the job once more
 * after the winner. The attributes a user left at their defaults become {@code acquireTimeout = "0"} and
 * {@code onFailure = SKIP}; an explicit setting wins.
 * <p>
 * An annotation at run time does not say which attributes were written out; the class file does, so "unset"
 * means not written there (see {@code DeclaredLockAttributes}): {@code onFailure = THROW} written out is kept.
 * Where the class file cannot tell (the annotation is inherited from an interface, say), "unset" means "equal
 * to the default": {@code acquireTimeout = ""} and {@code onFailure = THROW}.
 * <p>
 * Only a {@code cron} schedule fires at the same (clock) moments on every instance; {@code fixedRate} and
 * {@code fixedDelay} count from each instance's own startup or last run, so the instances fire at phases of their
 * own, and a short job runs on several of them in one period unless {@code holdAtLeast} keeps the lock taken
 * (see {@code ScheduledLockLog}).
 *
 * @param timeoutDefaulted whether the acquire timeout was unset and is now zero
 * @param onFailureDefaulted whether {@code onFailure} was unset and is now {@code SKIP}
 * @param ownPhase the first of {@code fixedRate} and {@code fixedDelay} that one of the method's schedules sets,
 * or {@code null} when every schedule is a {@code cron}
 */
record ScheduledLock(boolean timeoutDefaulted, boolean onFailureDefaulted, @Nullable String ownPhase) {

	/**
	 * Returns how the scheduled defaults apply to a method.
	 * @param method the annotated method
	 * @param annotation its {@code @DistributedLock}
	 * @return {@code null} if the method is not {@code @Scheduled}
	 */
	static @Nullable ScheduledLock of(Method method, DistributedLock annotation) {
		if (!AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)
				&& !AnnotatedElementUtils.hasAnnotation(method, Schedules.class)) {
			return null;
		}
		Set<String> written = DeclaredLockAttributes.of(method);
		String ownPhase = ownPhase(method);
		if (written == null) {
			// the class file cannot tell: left at the default's value counts as unset
			return new ScheduledLock(annotation.acquireTimeout().isEmpty(),
					annotation.onFailure() == OnLockFailure.THROW, ownPhase);
		}
		return new ScheduledLock(!written.contains("acquireTimeout"), !written.contains("onFailure"), ownPhase);
	}

	private static @Nullable String ownPhase(Method method) {
		for (Scheduled scheduled : AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class,
				Schedules.class)) {
			if (scheduled.fixedRate() >= 0 || !scheduled.fixedRateString().isEmpty()) {
				return "fixedRate";
			}
			if (scheduled.fixedDelay() >= 0 || !scheduled.fixedDelayString().isEmpty()) {
				return "fixedDelay";
			}
		}
		return null;
	}

	/**
	 * The acquire timeout a scheduled method runs with.
	 * @param parsed the annotation's, or {@code null} when unset
	 * @return zero when unset, else the annotation's
	 */
	@Nullable Duration acquireTimeout(@Nullable Duration parsed) {
		return (this.timeoutDefaulted || parsed == null) ? Duration.ZERO : parsed;
	}

	/**
	 * What a scheduled method does when it loses.
	 * @param declared the annotation's
	 * @return {@code SKIP} when unset, else the annotation's
	 */
	OnLockFailure onFailure(OnLockFailure declared) {
		return this.onFailureDefaulted ? OnLockFailure.SKIP : declared;
	}

}
