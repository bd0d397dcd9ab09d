package io.rattan.client.arch;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import io.rattan.client.arch.leak.LeakyApi;
import io.rattan.core.arch.ModuleRules;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The client's public API names no type of dht-core: a user depends on the client and its API types
 * ({@code io.rattan.api}), never on the node's internals, which may change in any release. Every signature a user can
 * reach counts: public and protected members of public types, their supertypes, generics included. The package
 * {@code io.rattan.client.netty} is the codec the node's ports share with the client, not API (its package Javadoc
 * says so), and is left out. The rule is also run on a fixture, where it must fail.
 */
class PublicApiTest {

    private static final String INTERNALS = "io.rattan.core.";

    @Test
    void noPublicSignatureOfTheClientNamesACoreType() {
        List<String> leaks = new ArrayList<>();
        List<Class<?>> api = ModuleRules.mainClassesOf("io.rattan.client").stream()
                .filter(c -> !c.getPackageName().startsWith("io.rattan.client.netty"))
                .map(JavaClass::reflect)
                .filter(PublicApiTest::reachable)
                .toList();
        api.forEach(c -> leaks.addAll(leaksOf(c)));
        assertThat(api).extracting(Class::getSimpleName).contains("RattanClient", "GetResult", "RattanException");
        assertThat(leaks).isEmpty();
    }

    @Test
    void theRuleCatchesALeak() {
        assertThat(leaksOf(LeakyApi.class)).containsExactlyInAnyOrder(
                "LeakyApi.envelope: io.rattan.core.msg.Envelope",
                "LeakyApi.inherited: io.rattan.core.msg.Envelope",
                "LeakyApi.messages: io.rattan.core.msg.Message",
                "LeakyApi: io.rattan.core.env.Clock");
    }

    /** A user can name the class: it and every class it is nested in are public. */
    private static boolean reachable(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            if (!Modifier.isPublic(k.getModifiers()) || k.isAnonymousClass() || k.isLocalClass()) {
                return false;
            }
        }
        return true;
    }

    /** "Class.member: core type" for each core type in a signature {@code c} shows its users. */
    static List<String> leaksOf(Class<?> c) {
        List<String> leaks = new ArrayList<>();
        List<Type> ownTypes = new ArrayList<>(List.of(c.getGenericInterfaces()));
        if (c.getGenericSuperclass() != null) {
            ownTypes.add(c.getGenericSuperclass());
        }
        ownTypes.addAll(List.of(c.getTypeParameters()));
        report(leaks, c.getSimpleName(), ownTypes.toArray(Type[]::new));
        // Declared members, and those inherited from every superclass and interface (a package-private superclass's
        // public methods are the subclass's API: RattanClient.Builder's setters live in ClientSettings; javac's
        // bridges for them are synthetic, so the superclass's own methods are read).
        List<Member> members = new ArrayList<>(List.of(c.getDeclaredConstructors()));
        members.addAll(List.of(c.getMethods()));
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            members.addAll(List.of(k.getDeclaredMethods()));
            members.addAll(List.of(k.getDeclaredFields()));
        }
        members.stream()
                .distinct()
                .filter(PublicApiTest::visible)
                .forEach(m -> report(leaks, c.getSimpleName() + "." + m.getName(), typesOf(m)));
        return leaks.stream().distinct().toList();
    }

    private static boolean visible(Member m) {
        int mod = m.getModifiers();
        return !m.isSynthetic() && (Modifier.isPublic(mod) || Modifier.isProtected(mod))
                && !(m instanceof Method method && method.isBridge());
    }

    private static Type[] typesOf(Member member) {
        if (member instanceof Field f) {
            return new Type[] {f.getGenericType()};
        }
        Executable e = (Executable) member;
        List<Type> types = new ArrayList<>(List.of(e.getGenericParameterTypes()));
        types.addAll(List.of(e.getGenericExceptionTypes()));
        types.addAll(List.of(e.getTypeParameters()));
        if (e instanceof Method m) {
            types.add(m.getGenericReturnType());
        }
        return types.toArray(Type[]::new);
    }

    private static void report(List<String> leaks, String where, Type... types) {
        Set<Class<?>> raw = new HashSet<>();
        Set<Type> seen = new HashSet<>();
        for (Type t : types) {
            collect(t, raw, seen);
        }
        raw.stream().map(Class::getName).filter(n -> n.startsWith(INTERNALS)).sorted()
                .forEach(n -> leaks.add(where + ": " + n));
    }

    private static void collect(Type t, Set<Class<?>> raw, Set<Type> seen) {
        if (!seen.add(t)) {
            return;
        }
        if (t instanceof Class<?> c) {
            Class<?> element = c;
            while (element.isArray()) {
                element = element.componentType();
            }
            raw.add(element);
        } else if (t instanceof ParameterizedType p) {
            collect(p.getRawType(), raw, seen);
            Stream.of(p.getActualTypeArguments()).forEach(a -> collect(a, raw, seen));
        } else if (t instanceof GenericArrayType a) {
            collect(a.getGenericComponentType(), raw, seen);
        } else if (t instanceof WildcardType w) {
            Stream.concat(Stream.of(w.getUpperBounds()), Stream.of(w.getLowerBounds())).forEach(b -> collect(b, raw, seen));
        } else if (t instanceof TypeVariable<?> v) {
            Stream.of(v.getBounds()).forEach(b -> collect(b, raw, seen));
        }
    }
}
