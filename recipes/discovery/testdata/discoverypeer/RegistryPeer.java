import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The Java side of the registry tests on a server: a registry kept as
 * curator-x-discovery 5.x keeps it, with ZooKeeper's own client (Debian's)
 * and DiscoveryPeer's Jackson codec, on its paths: each instance is the
 * node BASE/NAME/ID, ephemeral for a dynamic instance, its parents
 * containers (Curator's creatingParentContainersIfNeeded).
 *
 * Usage: RegistryPeer CONNECT SESSIONMS BASE MODE CLASS; it prints "ready"
 * once connected, then answers each line of stdin on one line of stdout:
 *   register FILE: registers the instance that Jackson reads from FILE, as
 *     Jackson writes it: "ok PATH" or "err MESSAGE".
 *   list NAME: reads each instance of NAME with Jackson: one line
 *     "ok ID ADDRESS PORT PAYLOADCLASS ENABLED" per instance (or "err ID
 *     MESSAGE"), then "end".
 * At the end of stdin it closes its session, and its instances go with it.
 */
public class RegistryPeer {
    public static void main(String[] args) throws Exception {
        String base = args[2];
        DiscoveryPeer.Codec codec = new DiscoveryPeer.Codec(Class.forName(args[4]), args[3].equals("compatible"));
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(args[0], Integer.parseInt(args[1]), e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) connected.countDown();
        });
        if (!connected.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("no connection to " + args[0]);
        System.out.println("ready");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split(" +");
            try {
                switch (f[0]) {
                    case "register": System.out.println("ok " + register(zk, codec, base, Path.of(f[1]))); break;
                    case "list": list(zk, codec, base + "/" + f[1]); System.out.println("end"); break;
                    default: System.out.println("err unknown command " + f[0]);
                }
            } catch (Exception e) {
                System.out.println("err " + e.toString().replaceAll("\\s+", " "));
            }
            System.out.flush();
        }
        zk.close();
    }

    static String register(ZooKeeper zk, DiscoveryPeer.Codec codec, String base, Path file) throws Exception {
        DiscoveryPeer.Instance<?> inst = codec.read(Files.readAllBytes(file));
        String dir = base + "/" + inst.getName();
        containers(zk, dir);
        return zk.create(dir + "/" + inst.getId(), codec.write(inst), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    }

    /** Creates every missing node of path as a container. */
    static void containers(ZooKeeper zk, String path) throws Exception {
        for (int i = path.indexOf('/', 1); ; i = path.indexOf('/', i + 1)) {
            String p = i < 0 ? path : path.substring(0, i);
            try {
                zk.create(p, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
            } catch (KeeperException.NodeExistsException e) {
                // there already
            }
            if (i < 0) return;
        }
    }

    static void list(ZooKeeper zk, DiscoveryPeer.Codec codec, String dir) throws Exception {
        List<String> ids = zk.getChildren(dir, false);
        for (String id : ids) {
            try {
                DiscoveryPeer.Instance<?> inst = codec.read(zk.getData(dir + "/" + id, false, null));
                Object p = inst.getPayload();
                System.out.println("ok " + inst.getId() + " " + inst.getAddress() + " " + inst.getPort() + " "
                        + (p == null ? "null" : p.getClass().getName()) + " " + inst.isEnabled());
            } catch (Exception e) {
                System.out.println("err " + id + " " + e.toString().replaceAll("\\s+", " "));
            }
        }
    }
}
