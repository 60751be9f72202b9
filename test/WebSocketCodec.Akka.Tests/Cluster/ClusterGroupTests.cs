using System.Collections.Concurrent;
using Akka.Actor;
using Akka.Cluster;
using Microsoft.AspNetCore.Builder;
using WebSocketCodec.Akka.Cluster;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;
using ClusterExtension = Akka.Cluster.Cluster;

namespace WebSocketCodec.Akka.Tests.Cluster;

/// <summary>
/// Websocket groups across a cluster, in one process: three ASP.NET Core applications, each a cluster node (remoting
/// in endpoint mode on the application's port) and a chat endpoint whose websockets join the cluster group "room" and
/// broadcast what they send. Clients on every node get every publisher's messages, each publisher's in order; a
/// broadcast over the remoting frame size is refused before anything is sent; a node that leaves closes its members
/// with 1001 while the others keep chatting.
/// </summary>
public sealed class ClusterGroupTests : IAsyncLifetime
{
    private const string ClusterHocon = Nodes.FastCluster + "akka.cluster.failure-detector.acceptable-heartbeat-pause = 5s";

    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(30);
    private readonly List<Node> _nodes = [];

    public async Task InitializeAsync()
    {
        for (int i = 0; i < 3; i++)
        {
            var node = new Node();
            node.App = await RemotingApp.StartAsync(endpoints => endpoints.MapWebSocket("/room", node.RunMemberAsync));
            string seeds = _nodes.Count == 0 ? "" : $"akka.cluster.seed-nodes = [\"{Nodes.AddressOf(_nodes[0].System)}\"]";
            node.System = node.App.StartSystem("chat", extra: ClusterHocon + "\n" + seeds);
            node.Group = ClusterWebSocketGroups.Get(node.System).Group("room");
            if (i == 0)
            {
                ClusterExtension.Get(node.System).Join(Nodes.AddressOf(node.System));
            }

            _nodes.Add(node);
        }

        await Eventually.True(() => _nodes.All(n => ClusterExtension.Get(n.System).State.Members.Count(m => m.Status == MemberStatus.Up) == 3), Bound);
        await WhenEveryNodeReachesEveryOtherAsync();
    }

    /// <summary>The mediators learn of each node's group by gossip: each node broadcasts a probe until a member on
    /// every other node got one (the tests' receivers skip probes that arrive later).</summary>
    private async Task WhenEveryNodeReachesEveryOtherAsync()
    {
        MessageWebSocket[] probes = await Task.WhenAll(_nodes.Select(ConnectAsync));
        await Eventually.True(() => _nodes.All(node => node.Group.LocalCount == 1), Bound);
        try
        {
            for (int from = 0; from < _nodes.Count; from++)
            {
                foreach (MessageWebSocket probe in probes.Where((_, at) => at != from))
                {
                    using var deadline = new CancellationTokenSource(Bound);
                    while (true)
                    {
                        _nodes[from].Group.Broadcast(WebSocketOpcode.Text, System.Text.Encoding.UTF8.GetBytes($"{Probe}{from}"));
                        using var step = CancellationTokenSource.CreateLinkedTokenSource(deadline.Token);
                        step.CancelAfter(TimeSpan.FromMilliseconds(200));
                        try
                        {
                            if (await ReceiveAnyAsync(probe, step.Token) == $"{Probe}{from}")
                            {
                                break;
                            }
                        }
                        catch (OperationCanceledException) when (!deadline.IsCancellationRequested)
                        {
                            // Not there yet: probe again.
                        }
                    }
                }
            }
        }
        finally
        {
            foreach (MessageWebSocket probe in probes)
            {
                await probe.DisposeAsync();
            }
        }

        await Eventually.True(() => _nodes.All(node => node.Group.LocalCount == 0), Bound);
    }

    private const string Probe = "probe:";

    private static async Task<string> ReceiveAnyAsync(MessageWebSocket socket, CancellationToken cancellationToken)
    {
        using WebSocketMessage? message = await socket.ReceiveAsync(cancellationToken);
        Assert.True(message is not null, "the probe's websocket ended");
        return message.GetText();
    }

    public async Task DisposeAsync()
    {
        foreach (Node node in _nodes)
        {
            await node.App.DisposeAsync();
        }
    }

    [Fact]
    public async Task Every_member_on_every_node_gets_every_publishers_messages_in_order()
    {
        const int perNode = 3;
        const int messages = 40;
        var clients = new List<(int Node, MessageWebSocket Socket)>();
        for (int n = 0; n < _nodes.Count; n++)
        {
            for (int c = 0; c < perNode; c++)
            {
                clients.Add((n, await ConnectAsync(_nodes[n])));
            }
        }

        await Eventually.True(() => _nodes.All(node => node.Group.LocalCount == perNode), Bound);

        // One publisher per node, all at once.
        MessageWebSocket[] publishers = [.. Enumerable.Range(0, _nodes.Count).Select(n => clients.First(c => c.Node == n).Socket)];
        Task[] publishing = [.. publishers.Select((socket, p) => Task.Run(async () =>
        {
            for (int i = 0; i < messages; i++)
            {
                await socket.SendTextAsync($"{p}:{i}");
            }
        }))];
        List<string>[] received = await Task.WhenAll(clients.Select(c => ReceiveAsync(c.Socket, publishers.Length * messages)));
        await Task.WhenAll(publishing);

        foreach (List<string> seen in received)
        {
            for (int p = 0; p < publishers.Length; p++)
            {
                Assert.Equal(Enumerable.Range(0, messages).Select(i => $"{p}:{i}"), seen.Where(m => m.StartsWith($"{p}:", StringComparison.Ordinal)));
            }
        }

        foreach ((_, MessageWebSocket socket) in clients)
        {
            await socket.DisposeAsync();
        }
    }

    [Fact]
    public async Task A_broadcast_over_the_remoting_frame_size_is_refused_and_reaches_nobody()
    {
        ClusterWebSocketGroup group = _nodes[0].Group;
        Assert.InRange(group.MaxPayloadLength, 100_000, 128_000 - 500); // 128,000 B frames less Akka's envelope
        await using MessageWebSocket listener = await ConnectAsync(_nodes[1]);
        await Eventually.True(() => _nodes[1].Group.LocalCount == 1, Bound);

        ArgumentException refused = Assert.Throws<ArgumentException>(() => group.Broadcast(WebSocketOpcode.Binary, new byte[group.MaxPayloadLength + 1]));
        Assert.Contains("maximum-frame-size", refused.Message, StringComparison.Ordinal);

        // The largest that fits crosses; the refused one never arrives before it.
        group.Broadcast(WebSocketOpcode.Binary, new byte[group.MaxPayloadLength]);
        using WebSocketMessage? largest = await listener.ReceiveAsync().AsTask().WaitAsync(Bound);
        Assert.Equal(group.MaxPayloadLength, largest?.Length);
    }

    [Fact]
    public async Task A_node_that_leaves_closes_its_members_with_1001_and_the_others_keep_chatting()
    {
        await using MessageWebSocket leaving = await ConnectAsync(_nodes[2]);
        await using MessageWebSocket staying = await ConnectAsync(_nodes[1]);
        await using MessageWebSocket publisher = await ConnectAsync(_nodes[0]);
        await Eventually.True(() => _nodes.All(node => node.Group.LocalCount == 1), Bound);

        await ClusterExtension.Get(_nodes[2].System).LeaveAsync().WaitAsync(Bound);

        WebSocketCloseInfo end = await leaving.Completion.WaitAsync(Bound);
        Assert.Equal(CloseStatus.GoingAway, end.ReceivedStatus);
        await publisher.SendTextAsync("after the leave");
        Assert.Equal(["after the leave"], await ReceiveAsync(staying, 1));
    }

    private static async Task<MessageWebSocket> ConnectAsync(Node node)
    {
        using var timeout = new CancellationTokenSource(Bound);
        return await WebSocketClient.ConnectMessagesAsync(new Uri($"ws://127.0.0.1:{node.App.Port}/room"), cancellationToken: timeout.Token);
    }

    private static async Task<List<string>> ReceiveAsync(MessageWebSocket socket, int count)
    {
        var seen = new List<string>(count);
        using var timeout = new CancellationTokenSource(Bound);
        while (seen.Count < count)
        {
            using WebSocketMessage? message = await socket.ReceiveAsync(timeout.Token);
            Assert.True(message is not null, $"the websocket ended after {seen.Count} of {count} messages");
            string text = message.GetText();
            if (!text.StartsWith(Probe, StringComparison.Ordinal)) // a late probe of the set-up
            {
                seen.Add(text);
            }
        }

        return seen;
    }

    /// <summary>One node: the application, its actor system and its side of the group.</summary>
    private sealed class Node
    {
        public RemotingApp App { get; set; } = null!;

        public ActorSystem System { get; set; } = null!;

        public ClusterWebSocketGroup Group { get; set; } = null!;

        /// <summary>A chat member: joins the group, and every text it sends goes to the whole cluster group.</summary>
        public async Task RunMemberAsync(Microsoft.AspNetCore.Http.HttpContext context, WebSocketConnection websocket)
        {
            ClusterWebSocketGroup group = Group;
            group.Add(websocket.Driver);
            try
            {
                await websocket.RunAsync(sender => new WebSocketMessageListener<ClusterWebSocketGroup>(
                    group, static (g, type, payload) => g.Broadcast(WebSocketOpcode.Text, payload)));
            }
            finally
            {
                group.Remove(websocket.Driver);
            }
        }
    }
}
