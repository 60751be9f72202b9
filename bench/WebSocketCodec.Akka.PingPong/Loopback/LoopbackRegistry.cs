using System.Collections.Concurrent;

namespace WebSocketCodec.Akka.PingPong.Loopback;

/// <summary>The listening loopback transports of this process, keyed by "host:port" (the scheme and the system name
/// are left out: Akka hands <see cref="LoopbackTransport.Associate"/> the address without its <c>akka.</c> prefix, and
/// one port is one transport).</summary>
internal static class LoopbackRegistry
{
    private static readonly ConcurrentDictionary<string, LoopbackTransport> Listening = new(StringComparer.OrdinalIgnoreCase);
    private static int _nextPort = 40_000;

    /// <summary>A port no transport of this process has taken (the loopback ports are not sockets).</summary>
    public static int NextPort() => Interlocked.Increment(ref _nextPort);

    public static string Key(string host, int port) => $"{host}:{port}";

    public static bool TryAdd(string key, LoopbackTransport transport) => Listening.TryAdd(key, transport);

    public static bool TryGet(string key, out LoopbackTransport? transport) => Listening.TryGetValue(key, out transport);

    public static void Remove(string key, LoopbackTransport transport) => Listening.TryRemove(new KeyValuePair<string, LoopbackTransport>(key, transport));
}
