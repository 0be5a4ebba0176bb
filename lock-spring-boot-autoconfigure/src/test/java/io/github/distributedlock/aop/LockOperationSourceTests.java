package io.github.distributedlock.aop;

import java.time.Duration;

import io.github.distributedlock.annotation.DistributedLock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link LockOperationSource} resolves a method's annotation once and checks it, without a bean factory.
 */
class LockOperationSourceTests {

	private final LockOperationSource source = new LockOperationSource();

	private LockOperation operation(String method) throws NoSuchMethodException {
		return this.source.getOperation(Jobs.class.getMethod(method), Jobs.class);
	}

	@Test
	void holdAtLeastIsParsedAndEmptyMeansNone() throws Exception {
		assertThat(operation("holdsThirtySeconds").holdAtLeast()).isEqualTo(Duration.ofSeconds(30));
		assertThat(operation("holdsZero").holdAtLeast()).isZero();
		assertThat(operation("holdsNothing").holdAtLeast()).isNull();
	}

	@Test
	void aNegativeHoldAtLeastNamesMethodAttributeAndValue() {
		assertThatThrownBy(() -> operation("holdsNegative")).isInstanceOf(InvalidLockAnnotationException.class)
			.hasMessageContaining("holdAtLeast '-1ms'")
			.hasMessageContaining("Jobs.holdsNegative()")
			.hasMessageContaining("must not be negative")
			.satisfies((ex) -> assertThat(((InvalidLockAnnotationException) ex).getBeanName()).isNull());
	}

	@Test
	void aMalformedHoldAtLeastIsRejected() {
		assertThatThrownBy(() -> operation("holdsMalformed")).isInstanceOf(InvalidLockAnnotationException.class)
			.hasMessageContaining("holdAtLeast 'a while'")
			.hasMessageContaining("not a duration");
	}

	@Test
	void aValidOperationIsResolvedOnceAnInvalidOneEveryTime() throws Exception {
		assertThat(operation("holdsThirtySeconds")).isSameAs(operation("holdsThirtySeconds"));
		Throwable first = catchThrowable(() -> operation("holdsNegative"));
		Throwable second = catchThrowable(() -> operation("holdsNegative"));
		assertThat(first).isInstanceOf(InvalidLockAnnotationException.class);
		assertThat(second).isInstanceOf(InvalidLockAnnotationException.class).isNotSameAs(first);
	}

	static class Jobs {

		@DistributedLock(holdAtLeast = "30s")
		public void holdsThirtySeconds() {
		}

		@DistributedLock(holdAtLeast = "0")
		public void holdsZero() {
		}

		@DistributedLock
		public void holdsNothing() {
		}

		@DistributedLock(holdAtLeast = "-1ms")
		public void holdsNegative() {
		}

		@DistributedLock(holdAtLeast = "a while")
		public void holdsMalformed() {
		}

	}

}
