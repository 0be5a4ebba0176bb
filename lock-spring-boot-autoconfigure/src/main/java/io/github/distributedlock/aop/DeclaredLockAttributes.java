package io.github.distributedlock.aop;

import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Set;

import io.github.distributedlock.annotation.DistributedLock;
import org.jspecify.annotations.Nullable;

import org.springframework.asm.AnnotationVisitor;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;

/**
 * Which attributes of a {@code @DistributedLock} were written out, read from the class file: at run time an
 * annotation reports its defaults like written values, while the class file records only what was written. So
 * {@code onFailure = THROW} written out can be told from the default. Reads the method's own annotation, or the
 * {@code @DistributedLock} on the annotation type it is meta-present through; anything else is unknown.
 */
final class DeclaredLockAttributes {

	private static final String DESCRIPTOR = Type.getDescriptor(DistributedLock.class);

	private DeclaredLockAttributes() {
	}

	/**
	 * Returns the attributes written out in the method's {@code @DistributedLock}.
	 * @param method the annotated method
	 * @return the attribute names, or {@code null} if the class file cannot tell (not readable, or the
	 * annotation comes from elsewhere, such as an interface)
	 */
	static @Nullable Set<String> of(Method method) {
		if (method.isAnnotationPresent(DistributedLock.class)) {
			return read(method.getDeclaringClass(), method.getName(), Type.getMethodDescriptor(method));
		}
		for (Annotation annotation : method.getDeclaredAnnotations()) {
			Class<? extends Annotation> composed = annotation.annotationType();
			if (composed.isAnnotationPresent(DistributedLock.class)) {
				return read(composed, null, null);
			}
		}
		return null;
	}

	/** The written attributes of the {@code @DistributedLock} on a method ({@code name} given) or on the type. */
	private static @Nullable Set<String> read(Class<?> type, @Nullable String methodName,
			@Nullable String methodDescriptor) {
		ClassLoader loader = (type.getClassLoader() != null) ? type.getClassLoader()
				: ClassLoader.getSystemClassLoader();
		try (InputStream in = loader.getResourceAsStream(type.getName().replace('.', '/') + ".class")) {
			if (in == null) {
				return null;
			}
			Set<String> written = new HashSet<>();
			boolean[] found = new boolean[1];
			new ClassReader(in).accept(new ClassVisitor(SpringAsmInfo.ASM_VERSION) {

				@Override
				public @Nullable AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
					return (methodName == null && DESCRIPTOR.equals(descriptor)) ? collect(written, found) : null;
				}

				@Override
				public @Nullable MethodVisitor visitMethod(int access, String name, String descriptor,
						@Nullable String signature, String @Nullable [] exceptions) {
					if (!name.equals(methodName) || !descriptor.equals(methodDescriptor)) {
						return null;
					}
					return new MethodVisitor(SpringAsmInfo.ASM_VERSION) {

						@Override
						public @Nullable AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
							return DESCRIPTOR.equals(annotation) ? collect(written, found) : null;
						}

					};
				}

			}, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
			return found[0] ? written : null;
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

	private static AnnotationVisitor collect(Set<String> written, boolean[] found) {
		found[0] = true;
		return new AnnotationVisitor(SpringAsmInfo.ASM_VERSION) {

			@Override
			public void visit(String name, Object value) {
				written.add(name);
			}

			@Override
			public void visitEnum(String name, String descriptor, String value) {
				written.add(name);
			}

			@Override
			public @Nullable AnnotationVisitor visitArray(String name) {
				written.add(name);
				return null;
			}

			@Override
			public @Nullable AnnotationVisitor visitAnnotation(String name, String descriptor) {
				written.add(name);
				return null;
			}

		};
	}

}
