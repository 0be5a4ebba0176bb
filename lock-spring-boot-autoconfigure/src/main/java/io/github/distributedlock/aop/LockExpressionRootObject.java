package io.github.distributedlock.aop;

import java.lang.reflect.Method;

/**
 * The {@code #root} object of {@code @DistributedLock} key expressions: {@code #root.method},
 * {@code #root.methodName}, {@code #root.args}, {@code #root.target}, {@code #root.targetClass}.
 * Immutable per call.
 */
public final class LockExpressionRootObject {

	private final Method method;

	private final Object[] args;

	private final Object target;

	private final Class<?> targetClass;

	LockExpressionRootObject(Method method, Object[] args, Object target, Class<?> targetClass) {
		this.method = method;
		this.args = args;
		this.target = target;
		this.targetClass = targetClass;
	}

	/**
	 * Returns the called method.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * Returns the called method's name.
	 * @return the method name
	 */
	public String getMethodName() {
		return this.method.getName();
	}

	/**
	 * Returns the call's arguments.
	 * @return the arguments, as passed
	 */
	public Object[] getArgs() {
		return this.args;
	}

	/**
	 * Returns the bean whose method is called.
	 * @return the target object
	 */
	public Object getTarget() {
		return this.target;
	}

	/**
	 * Returns the class of the bean whose method is called.
	 * @return the target class
	 */
	public Class<?> getTargetClass() {
		return this.targetClass;
	}

}
