package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * Checks, once per key expression, that each {@code #name} it reads is something the method's evaluation
 * context provides: a parameter by name, {@code #p0}/{@code #a0} within the parameter count, {@code #root} or
 * {@code #this}. A name that cannot be provided is {@code null} at every call, so the call fails ("evaluated to
 * null", or {@code EL1007E ... on null}); this makes it a startup failure instead. The usual cause is a class
 * compiled without {@code -parameters}: its parameter names are not in the class file.
 */
final class KeyParameterCheck {

	private static final Pattern INDEXED = Pattern.compile("[ap](\\d+)");

	private static final ParameterNameDiscoverer discoverer = new DefaultParameterNameDiscoverer();

	private KeyParameterCheck() {
	}

	/**
	 * Checks the variables of a parsed key expression.
	 * @param expression the parsed expression
	 * @param source the expression as written
	 * @param method the method whose arguments it reads
	 * @param description the method as named in error messages
	 * @throws InvalidLockAnnotationException if it reads a variable the method cannot provide
	 */
	static void check(Expression expression, String source, Method method, String description) {
		if (expression instanceof SpelExpression spel) {
			check(spel.getAST(), source, method, description);
		}
	}

	private static void check(SpelNode node, String source, Method method, String description) {
		if (node instanceof VariableReference) {
			checkVariable(node.toStringAST().substring(1), source, method, description);
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			check(node.getChild(i), source, method, description);
		}
	}

	private static void checkVariable(String name, String source, Method method, String description) {
		if (name.equals("root") || name.equals("this")) {
			return;
		}
		int count = method.getParameterCount();
		Matcher indexed = INDEXED.matcher(name);
		if (indexed.matches()) {
			if (Integer.parseInt(indexed.group(1)) >= count) {
				throw new InvalidLockAnnotationException(description, "key", source,
						"#" + name + " is argument " + indexed.group(1) + ", but the method has " + count
								+ ((count == 1) ? " parameter" : " parameters") + " (#p0 is the first)",
						"Use #p0 to #p" + Math.max(0, count - 1) + ", or a parameter name.", null);
			}
			return;
		}
		String @Nullable [] names = discoverer.getParameterNames(method);
		if (names == null) {
			throw new InvalidLockAnnotationException(description, "key", source,
					"it reads the parameter '" + name + "' by name, but the parameter names of "
							+ method.getDeclaringClass().getName() + " are not in its class file (it was compiled "
							+ "without -parameters), so #" + name + " would be null at every call",
					"Compile with -parameters (Spring Boot's Maven and Gradle plugins turn it on; with the "
							+ "maven-compiler-plugin alone set <parameters>true</parameters>, with Gradle "
							+ "options.compilerArgs.add(\"-parameters\")), or name the argument by position: #p0 "
							+ "or #a0 is the first.",
					null);
		}
		if (!Arrays.asList(names).contains(name)) {
			throw new InvalidLockAnnotationException(description, "key", source,
					"#" + name + " is no parameter of the method, so it would be null at every call; its "
							+ "parameters are " + ((names.length == 0) ? "none" : String.join(", ", names)),
					"Use a parameter's name, #p0/#a0 by position, #root.methodName, #root.args or @bean.", null);
		}
	}

}
