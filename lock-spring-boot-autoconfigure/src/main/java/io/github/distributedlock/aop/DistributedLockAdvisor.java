package io.github.distributedlock.aop;

import java.util.Objects;

import io.github.distributedlock.annotation.DistributedLock;
import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Applies a {@link DistributedLockInterceptor} to methods annotated with {@link DistributedLock} (directly,
 * on an interface method they implement, or through a meta-annotation), the same way Spring applies
 * {@code @Transactional}. Its {@linkplain #getOrder() order} must put it outside the transaction advisor
 * (a lower number), so that the lock is released after the commit.
 */
public class DistributedLockAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient Pointcut pointcut = new AnnotationMatchingPointcut(null, DistributedLock.class, true);

	private final transient DistributedLockInterceptor interceptor;

	/**
	 * Creates the advisor.
	 * @param interceptor the advice
	 * @param order the advisor's order: lower runs first (further outside)
	 */
	public DistributedLockAdvisor(DistributedLockInterceptor interceptor, int order) {
		this.interceptor = Objects.requireNonNull(interceptor, "interceptor must not be null");
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
