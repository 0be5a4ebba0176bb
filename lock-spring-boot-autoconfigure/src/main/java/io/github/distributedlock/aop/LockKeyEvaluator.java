package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import java.lang.reflect.Constructor;

import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Parses {@code @DistributedLock} key expressions once per (method, expression) and evaluates them in a
 * fresh {@link MethodBasedEvaluationContext} per call: arguments by name (needs {@code -parameters}) and as
 * {@code #p0}/{@code #a0}, {@code #root} (a {@link LockExpressionRootObject}) and {@code @bean} references.
 * Parameter names are looked up once per method, and expressions are compiled after their first run.
 * Thread-safe.
 */
final class LockKeyEvaluator extends CachedExpressionEvaluator {

	private final Map<ExpressionKey, Expression> expressions = new ConcurrentHashMap<>(64);

	/** Parameter names per method: looked up by reflection once, not on every call. */
	private final Map<Method, String @Nullable []> parameterNames = new ConcurrentHashMap<>(64);

	private final ParameterNameDiscoverer cachingDiscoverer = new ParameterNameDiscoverer() {

		@Override
		public String @Nullable [] getParameterNames(Method method) {
			return LockKeyEvaluator.this.parameterNames.computeIfAbsent(method,
					(m) -> getParameterNameDiscoverer().getParameterNames(m));
		}

		@Override
		public String @Nullable [] getParameterNames(Constructor<?> constructor) {
			return null;
		}

	};

	/**
	 * Creates an evaluator whose parser compiles an expression to bytecode once it has run (SpEL's
	 * {@link SpelCompilerMode#MIXED}), falling back to interpretation where compiled code does not apply.
	 */
	LockKeyEvaluator() {
		super(new SpelExpressionParser(
				new SpelParserConfiguration(SpelCompilerMode.MIXED, LockKeyEvaluator.class.getClassLoader())));
	}

	/**
	 * Parses (or finds in the cache) an expression.
	 * @throws org.springframework.expression.ParseException if it is not valid SpEL
	 */
	Expression parse(String expression, AnnotatedElementKey methodKey) {
		return getExpression(this.expressions, methodKey, expression);
	}

	EvaluationContext createContext(LockExpressionRootObject root, Method method, Object[] args,
			@Nullable BeanResolver beanResolver) {
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args,
				this.cachingDiscoverer);
		if (beanResolver != null) {
			context.setBeanResolver(beanResolver);
		}
		return context;
	}

}
