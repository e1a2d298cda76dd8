package dev.weft.junit;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.SearchOption;

/**
 * The extension behind {@link NoPins} and {@link ExpectPins}: it runs each test method
 * invocation (plain, parameterized or repeated) as a {@link dev.weft.pin.PinCheck} against the
 * annotation nearest to the method. Register it through the annotations;
 * registered on its own it checks nothing.
 */
public final class PinCheckExtension implements InvocationInterceptor {

    /** Creates the extension; JUnit does this for the annotations. */
    public PinCheckExtension() {}

    @Override
    public void interceptTestMethod(
            Invocation<Void> invocation, ReflectiveInvocationContext<Method> call, ExtensionContext context)
            throws Throwable {
        check(invocation, call.getExecutable(), context);
    }

    @Override
    public void interceptTestTemplateMethod(
            Invocation<Void> invocation, ReflectiveInvocationContext<Method> call, ExtensionContext context)
            throws Throwable {
        check(invocation, call.getExecutable(), context);
    }

    private static void check(Invocation<Void> invocation, Method method, ExtensionContext context) throws Throwable {
        Optional<Rule> rule = rule(method).or(() -> rule(context.getRequiredTestClass()));
        if (rule.isEmpty()) {
            invocation.proceed();
            return;
        }
        PinAssertions.verify(
                invocation::proceed,
                rule.get().atLeast(),
                "the test",
                rule.get().onVirtualThread());
    }

    /** What an annotation asks: no pin ({@code atLeast} 0) or at least that many, and on which thread. */
    private record Rule(int atLeast, boolean onVirtualThread) {}

    /** The rule of the annotation on {@code element}, or empty when it has none. */
    private static Optional<Rule> rule(AnnotatedElement element) {
        Optional<NoPins> none;
        Optional<ExpectPins> some;
        if (element instanceof Class<?> type) {
            none = AnnotationSupport.findAnnotation(type, NoPins.class, SearchOption.INCLUDE_ENCLOSING_CLASSES);
            some = AnnotationSupport.findAnnotation(type, ExpectPins.class, SearchOption.INCLUDE_ENCLOSING_CLASSES);
        } else {
            none = AnnotationSupport.findAnnotation(element, NoPins.class);
            some = AnnotationSupport.findAnnotation(element, ExpectPins.class);
        }
        if (none.isPresent() && some.isPresent()) {
            throw new ExtensionConfigurationException(
                    element + " has both @NoPins and @ExpectPins;" + " keep the one that states what the test means");
        }
        if (some.isPresent() && some.get().atLeast() < 1) {
            throw new ExtensionConfigurationException("@ExpectPins(atLeast = "
                    + some.get().atLeast() + ") on " + element + " must be at least 1; use @NoPins to forbid pinning");
        }
        return none.map(n -> new Rule(0, n.onVirtualThread()))
                .or(() -> some.map(e -> new Rule(e.atLeast(), e.onVirtualThread())));
    }
}
