package io.github.distributedlock.aop;

import java.util.List;

import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * Runs {@code @DistributedLock} methods that return a {@code Mono} or a {@code Flux} through the
 * {@link ReactiveDistributedLockTemplate}: the method itself runs when the result is subscribed to, once the
 * lock is held, and the lock is released when its {@code Mono} or {@code Flux} ends. Loaded only when Reactor
 * is on the class path (the {@link DistributedLockInterceptor} reaches it only for such methods). Stateless.
 */
@SuppressWarnings("unchecked")
final class ReactiveLockInvoker {

	private ReactiveLockInvoker() {
	}

	/**
	 * Returns the locked result of a call.
	 * @param template the reactive template, or {@code null} if there is none (then the result fails)
	 * @param operation the method's annotation
	 * @param definitions the locks, keys evaluated
	 * @param invocation the call; proceeded at each subscription
	 * @param whenSkipped tells that a call was skipped ({@code onFailure = SKIP}), for the log
	 * @return a {@code Mono} or {@code Flux}, as the method declares
	 */
	static Object invoke(@Nullable Object template, LockOperation operation, List<LockDefinition> definitions,
			MethodInvocation invocation, Runnable whenSkipped) {
		boolean skip = operation.onFailure() == OnLockFailure.SKIP;
		if (!(template instanceof ReactiveDistributedLockTemplate reactive)) {
			return failed(operation, new DistributedLockException("@DistributedLock on " + operation.description()
					+ " returns a " + operation.method().getReturnType().getSimpleName()
					+ ", which needs a ReactiveDistributedLockTemplate bean: use Lettuce, not Jedis"));
		}
		// a clone per subscription: each one runs the rest of the interceptor chain and the method anew
		MethodInvocation later = (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone()
				: invocation;
		Flux<Object> action = Flux.defer(() -> {
			try {
				Publisher<Object> result = (Publisher<Object>) proceed(later);
				return (result != null) ? Flux.from(result) : Flux.empty();
			}
			catch (Throwable ex) {
				return Flux.error(ex);
			}
		});
		Flux<Object> locked = reactive.tryExecuteAllMany(definitions, action, skip ? () -> {
			whenSkipped.run();
			return Flux.empty();
		} : null);
		// a Mono's element comes with its completion, after the release, which may still fail it
		return (operation.returnKind() == ReturnKind.MONO) ? locked.singleOrEmpty() : locked;
	}

	/**
	 * Returns the failure of a call before its lock, as the method's type.
	 * @param operation the method's annotation
	 * @param failure the failure, such as a key expression that failed
	 * @return a failed {@code Mono} or {@code Flux}
	 */
	static Object failed(LockOperation operation, Throwable failure) {
		return (operation.returnKind() == ReturnKind.MONO) ? Mono.error(failure) : Flux.error(failure);
	}

	private static @Nullable Object proceed(MethodInvocation invocation) throws Throwable {
		MethodInvocation call = (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone()
				: invocation;
		return call.proceed();
	}

}
