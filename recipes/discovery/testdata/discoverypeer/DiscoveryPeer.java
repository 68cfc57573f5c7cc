import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * The Java side of the discovery format tests: it reads instance documents
 * and writes them back as curator-x-discovery 5.x's JsonInstanceSerializer
 * does, through classes of its own that have the fields, accessors,
 * constructors and Jackson annotations of Curator's ServiceInstance,
 * OldServiceInstance (the compatible mode), ServiceType and UriSpec, on
 * Jackson's defaults, as Curator's serializer sets them up.
 *
 * Usage: DiscoveryPeer OUTDIR (MODE CLASS IN OUT)...
 * MODE is "compatible" or "full"; CLASS is the payload class the reader
 * checks the payload against, as Curator's deserialize does. For each
 * document it prints one line: "ok OUT PAYLOADCLASS ENABLED" or
 * "err OUT MESSAGE".
 */
public class DiscoveryPeer {
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        for (int i = 1; i + 3 < args.length; i += 4) {
            String mode = args[i], payloadClass = args[i + 1], in = args[i + 2], name = args[i + 3];
            try {
                Codec codec = new Codec(Class.forName(payloadClass), mode.equals("compatible"));
                Instance<?> inst = codec.read(Files.readAllBytes(Path.of(in)));
                Files.write(out.resolve(name), codec.write(inst));
                Object p = inst.getPayload();
                System.out.println("ok " + name + " " + (p == null ? "null" : p.getClass().getName()) + " " + inst.isEnabled());
            } catch (Exception e) {
                System.out.println("err " + name + " " + e.toString().replaceAll("\\s+", " "));
            }
        }
    }

    /** JsonInstanceSerializer's behaviour: one mapper, unknown fields ignored. */
    static class Codec {
        final ObjectMapper mapper = new ObjectMapper();
        final Class<?> payloadClass;
        final boolean compatible;

        Codec(Class<?> payloadClass, boolean compatible) {
            this.payloadClass = payloadClass;
            this.compatible = compatible;
            mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        }

        Instance<?> read(byte[] data) throws Exception {
            Instance<?> inst = mapper.readValue(data, Instance.class);
            payloadClass.cast(inst.getPayload());
            return inst;
        }

        byte[] write(Instance<?> inst) throws Exception {
            if (!compatible) {
                return mapper.writeValueAsBytes(inst);
            }
            return mapper.writeValueAsBytes(new OldInstance<Object>(inst.getName(), inst.getId(), inst.getAddress(),
                    inst.getPort(), inst.getSslPort(), inst.getPayload(), inst.getRegistrationTimeUTC(),
                    inst.getServiceType(), inst.getUriSpec()));
        }
    }

    public enum Type { DYNAMIC, STATIC, PERMANENT, DYNAMIC_SEQUENTIAL }

    /** Mirrors ServiceInstance: final fields in its order, getters only. */
    public static class Instance<T> {
        private final String name;
        private final String id;
        private final String address;
        private final Integer port;
        private final Integer sslPort;
        private final T payload;
        private final long registrationTimeUTC;
        private final Type serviceType;
        private final Spec uriSpec;
        private final boolean enabled;

        Instance() {
            name = "";
            id = "";
            address = null;
            port = null;
            sslPort = null;
            payload = null;
            registrationTimeUTC = 0;
            serviceType = Type.DYNAMIC;
            uriSpec = null;
            enabled = true;
        }

        public String getName() { return name; }
        public String getId() { return id; }
        public String getAddress() { return address; }
        public Integer getPort() { return port; }
        public Integer getSslPort() { return sslPort; }
        @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS, defaultImpl = Object.class)
        public T getPayload() { return payload; }
        public long getRegistrationTimeUTC() { return registrationTimeUTC; }
        public Type getServiceType() { return serviceType; }
        public Spec getUriSpec() { return uriSpec; }
        public boolean isEnabled() { return enabled; }
    }

    /** Mirrors OldServiceInstance, what the compatible mode writes: no enabled. */
    static class OldInstance<T> {
        private final String name;
        private final String id;
        private final String address;
        private final Integer port;
        private final Integer sslPort;
        private final T payload;
        private final long registrationTimeUTC;
        private final Type serviceType;
        private final Spec uriSpec;

        OldInstance(String name, String id, String address, Integer port, Integer sslPort, T payload,
                long registrationTimeUTC, Type serviceType, Spec uriSpec) {
            this.name = name;
            this.id = id;
            this.address = address;
            this.port = port;
            this.sslPort = sslPort;
            this.payload = payload;
            this.registrationTimeUTC = registrationTimeUTC;
            this.serviceType = serviceType;
            this.uriSpec = uriSpec;
        }

        public String getName() { return name; }
        public String getId() { return id; }
        public String getAddress() { return address; }
        public Integer getPort() { return port; }
        public Integer getSslPort() { return sslPort; }
        @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS, defaultImpl = Object.class)
        public T getPayload() { return payload; }
        public long getRegistrationTimeUTC() { return registrationTimeUTC; }
        public Type getServiceType() { return serviceType; }
        public Spec getUriSpec() { return uriSpec; }
    }

    /** Mirrors UriSpec: an Iterable of parts whose getter hands out a copy. */
    public static class Spec implements Iterable<Spec.Part> {
        private final List<Part> parts = new ArrayList<>();

        public Spec() {}

        public List<Part> getParts() { return Collections.unmodifiableList(new ArrayList<>(parts)); }

        @Override
        public Iterator<Part> iterator() { return getParts().iterator(); }

        /** Mirrors UriSpec.Part. */
        public static class Part {
            private final String value;
            private final boolean variable;

            public Part() {
                value = "";
                variable = false;
            }

            public String getValue() { return value; }
            public boolean isVariable() { return variable; }
        }
    }
}
