package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;

/**
 * Parses {@code @DistributedLock} key expressions once per (method, expression) and evaluates them in a
 * fresh {@link MethodBasedEvaluationContext} per call: arguments by name (needs {@code -parameters}) and as
 * {@code #p0}/{@code #a0}, {@code #root} (a {@link LockExpressionRootObject}) and {@code @bean} references.
 * Thread-safe.
 */
final class LockKeyEvaluator extends CachedExpressionEvaluator {

	private final Map<ExpressionKey, Expression> expressions = new ConcurrentHashMap<>(64);

	/**
	 * Parses (or finds in the cache) an expression.
	 * @throws org.springframework.expression.ParseException if it is not valid SpEL
	 */
	Expression parse(String expression, AnnotatedElementKey methodKey) {
		return getExpression(this.expressions, methodKey, expression);
	}

	EvaluationContext createContext(LockExpressionRootObject root, Method method, Object[] args,
			@Nullable BeanFactory beanFactory) {
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args,
				getParameterNameDiscoverer());
		if (beanFactory != null) {
			context.setBeanResolver(new BeanFactoryResolver(beanFactory));
		}
		return context;
	}

}
