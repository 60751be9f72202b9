using System.Globalization;
using Xunit.Abstractions;
using static WebSocketCodec.Testing.ChatPageScripts;

namespace WebSocketCodec.Akka.Tests.Cluster;

/// <summary>
/// Headless Chromium pages on the chat's cluster (three <c>samples/Chat --seeds</c> processes behind
/// <c>samples/ChatGateway</c>): two pages on different nodes chat through the sample's own page; a page whose node is
/// killed reconnects through the gateway (the page's own back-off) to a node that lives, and chats on.
/// </summary>
[Collection(nameof(ChatClusterProcessCollection))]
public sealed class ChatClusterBrowserTests(ChromiumFixture chromium, ITestOutputHelper output) : IClassFixture<ChromiumFixture>
{
    private static readonly TimeSpan Wait = ChatClusterProcesses.Bound;

    [SkippableFact]
    public async Task Pages_on_different_nodes_chat_and_a_page_whose_node_dies_reconnects_through_the_gateway()
    {
        Skip.If(chromium.SkipReason is not null, chromium.SkipReason);
        using ChatClusterProcesses cluster = await ChatClusterProcesses.StartAsync(gateway: true);
        try
        {
            // The room exists on every node, and each knows the others', before the pages come.
            ChatMember[] anchors = await Task.WhenAll(Enumerable.Range(0, 3).Select(n => ChatMember.JoinAsync(cluster.RoomUrl(n, "lobby"), Wait)));
            await ChatClusterProcesses.WhenEveryMemberHearsEveryOtherAsync(anchors);

            await using HeadlessChromium ann = await HeadlessChromium.OpenAsync(chromium.Executable!, new Uri($"http://127.0.0.1:{cluster.Ports[0]}/?nick=ann&room=lobby"));
            await using HeadlessChromium bob = await HeadlessChromium.OpenAsync(chromium.Executable!, new Uri($"http://127.0.0.1:{cluster.Ports[1]}/?nick=bob&room=lobby"));
            Assert.Equal("connected to lobby", await ann.WaitForAsync(State, "connected", Wait));
            Assert.Equal("connected to lobby", await bob.WaitForAsync(State, "connected", Wait));
            await ann.WaitForAsync(Say("hello from node 0"), "sent", Wait);
            await bob.WaitForAsync(Lines(1), "[", Wait);
            await bob.WaitForAsync(Say("hi from node 1"), "sent", Wait);
            const string Expected = """["ann: hello from node 0","bob: hi from node 1"]""";
            Assert.Equal(Expected, await ann.WaitForAsync(Lines(2), "[", Wait));
            Assert.Equal(Expected, await bob.WaitForAsync(Lines(2), "[", Wait));

            // A third page through the gateway; find its node, and kill that node.
            await using HeadlessChromium cid = await HeadlessChromium.OpenAsync(chromium.Executable!, new Uri($"{cluster.GatewayUrl}?nick=cid&room=lobby"));
            Assert.Equal("connected to lobby", await cid.WaitForAsync(State, "connected", Wait));
            int cidNode = await NodeOfTheThirdPageAsync(cluster);
            output.WriteLine($"cid's page landed on node {cidNode}");
            cluster.Nodes[cidNode].Signal("KILL");
            await cid.WaitForAsync(State, "closed", Wait);
            Assert.Equal("connected to lobby", await cid.WaitForAsync(State, "connected", Wait)); // back, through the gateway

            // Whoever lives says something; cid's page shows it.
            HeadlessChromium speaker = cidNode == 0 ? bob : ann;
            await speaker.WaitForAsync(Say("still here"), "sent", Wait);
            string cidSaw = await cid.WaitForAsync(LinesContaining("still here"), "[", Wait);
            output.WriteLine(cidSaw);
        }
        catch
        {
            output.WriteLine(cluster.Describe());
            throw;
        }
    }

    /// <summary>The node with two members of the room (its anchor and the third page); the first two pages are on
    /// nodes 0 and 1, so those have two already: the one with three, or node 2 with two.</summary>
    private static async Task<int> NodeOfTheThirdPageAsync(ChatClusterProcesses cluster)
    {
        using var http = new HttpClient { Timeout = TimeSpan.FromSeconds(10) };
        int[] expectedWithout = [2, 2, 1];
        for (int attempt = 0; attempt < 100; attempt++)
        {
            for (int node = 0; node < 3; node++)
            {
                string count = await http.GetStringAsync(new Uri($"http://127.0.0.1:{cluster.Ports[node]}/rooms/lobby"));
                if (int.Parse(count, CultureInfo.InvariantCulture) == expectedWithout[node] + 1)
                {
                    return node;
                }
            }

            await Task.Delay(100);
        }

        throw new InvalidOperationException("the third page is on no node");
    }
}
