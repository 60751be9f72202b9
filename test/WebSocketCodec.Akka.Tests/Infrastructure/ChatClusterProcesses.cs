using WebSocketCodec.Testing;
using System.Globalization;
using WebSocketCodec.Samples.Chat;
using WebSocketCodec.Samples.ChatGateway;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>
/// <c>samples/Chat --seeds</c> on three processes (the first node is the seed) and, when asked,
/// <c>samples/ChatGateway</c> in front of them: each node started on a free port, up once it printed
/// <c>cluster members: 3</c>; the gateway once it printed <c>listening on</c>.
/// </summary>
public sealed class ChatClusterProcesses : IDisposable
{
    /// <summary>How long a start, a join or a failover is given on a loaded 2-core machine.</summary>
    public static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    private ChatClusterProcesses(ConsoleSampleProcess[] nodes, int[] ports)
    {
        Nodes = nodes;
        Ports = ports;
    }

    /// <summary>The node processes.</summary>
    public IReadOnlyList<ConsoleSampleProcess> Nodes { get; }

    /// <summary>Their ports.</summary>
    public IReadOnlyList<int> Ports { get; }

    /// <summary>The gateway process, when started.</summary>
    public ConsoleSampleProcess? Gateway { get; private set; }

    /// <summary>The gateway's base URL, when started.</summary>
    public Uri? GatewayUrl { get; private set; }

    /// <summary>Starts the nodes (and the gateway) and waits until all three are up in one cluster.</summary>
    public static async Task<ChatClusterProcesses> StartAsync(bool gateway)
    {
        string chat = typeof(ChatRooms).Assembly.Location;
        int[] ports = [FreePorts.Next(), FreePorts.Next(), FreePorts.Next()];
        string seeds = $"http://127.0.0.1:{ports[0]}";
        ConsoleSampleProcess[] nodes = [.. ports.Select((port, i) => ConsoleSampleProcess.Start(
            $"node{i} (:{port})", chat, "--port", port.ToString(CultureInfo.InvariantCulture), "--seeds", seeds))];
        var cluster = new ChatClusterProcesses(nodes, ports);
        try
        {
            await Task.WhenAll(nodes.Select(node => node.WaitForLineAsync(line => line == "cluster members: 3", Bound)));
            if (gateway)
            {
                cluster.Gateway = ConsoleSampleProcess.Start(
                    "gateway", typeof(GatewayHost).Assembly.Location, "--port", "0", "--nodes", string.Join(',', ports.Select(p => $"http://127.0.0.1:{p}")));
                string listening = await cluster.Gateway.WaitForLineAsync(line => line.StartsWith("listening on ", StringComparison.Ordinal), Bound);
                cluster.GatewayUrl = new Uri(listening["listening on ".Length..].Trim());
            }
        }
        catch
        {
            cluster.Dispose();
            throw;
        }

        return cluster;
    }

    /// <summary>A room's websocket URL on node <paramref name="node"/>.</summary>
    public Uri RoomUrl(int node, string room) => new($"ws://127.0.0.1:{Ports[node]}/chat/{room}");

    /// <summary>A room's websocket URL through the gateway.</summary>
    public Uri GatewayRoomUrl(string room) => new($"ws://{GatewayUrl!.Authority}/chat/{room}");

    /// <summary>
    /// Waits until every member's node knows the room's group on every other member's node (the groups' registry
    /// spreads by gossip): each member sends its probe again every 300 ms until every member got it.
    /// </summary>
    public static async Task WhenEveryMemberHearsEveryOtherAsync(IReadOnlyList<ChatMember> members)
    {
        using var deadline = new CancellationTokenSource(Bound);
        while (true)
        {
            ChatMember[] unheard = [.. members.Where((_, i) => !members.All(m => m.Probes.Contains($"{ChatMember.Probe}{i}")))];
            if (unheard.Length == 0)
            {
                return;
            }

            if (deadline.IsCancellationRequested)
            {
                throw new TimeoutException($"{unheard.Length} of {members.Count} members were not heard by all within {Bound.TotalSeconds} s.");
            }

            await Task.WhenAll(members.Select((member, i) => unheard.Contains(member) ? member.SendAsync($"{ChatMember.Probe}{i}") : Task.CompletedTask));
            await Task.Delay(300);
        }
    }

    /// <summary>Every process's output, for a failure's message.</summary>
    public string Describe() => string.Join('\n', Nodes.Append(Gateway).OfType<ConsoleSampleProcess>().Select(p => $"--- {p.Name}:\n{p.Output}"));

    /// <summary>Kills the processes that still run.</summary>
    public void Dispose()
    {
        Gateway?.Dispose();
        foreach (ConsoleSampleProcess node in Nodes)
        {
            node.Dispose();
        }
    }
}
