using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Net.WebSockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.DependencyInjection;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Tuning;

/// <summary><see cref="KestrelTuningExtensions.AddKestrelWebSocketTuning"/> on a real Kestrel: its pool serves the
/// connections, echoes of every size come back whole with independent clients, idle websockets hold no block, and the
/// blocks all come back.</summary>
public sealed class KestrelTuningTests
{
    private static Task<KestrelHost> StartAsync(Action<KestrelWebSocketTuning> tuning, bool tls = false, bool sharedPort = false) =>
        KestrelHost.StartAsync(
            app =>
            {
                app.MapWebSocket("/echo", (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo));
                app.MapGet("/hello", () => "hello");
            },
            tls: tls,
            services: services => services.AddKestrelWebSocketTuning(tuning),
            sharedPort: sharedPort);

    private static void Echo(WebSocketFrameSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload) =>
        sender.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload);

    [Theory]
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(false, true)] // HTTP/1.1 and h2c on one port: the shared port's own socket listener
    public async Task KestrelRentsFromTheTuningsPoolAndEveryMessageSizeEchoesWhole(bool tls, bool sharedPort)
    {
        await using KestrelHost host = await StartAsync(tuning => tuning.BlockSize = 8 * 1024, tls, sharedPort);
        var factory = host.App.Services.GetRequiredService<WebSocketMemoryPoolFactory>();
        Assert.Same(factory, host.App.Services.GetRequiredService<IMemoryPoolFactory<byte>>());
        using var client = new ClientWebSocket();
        client.Options.RemoteCertificateValidationCallback = (_, _, _, _) => true;
        await client.ConnectAsync(host.WebSocketUrl("/echo"), RawHttp.Timeout());
        await EchoRoundTrip.RunAsync(client); // up to 70,000 bytes: frames over many 8 KiB blocks
        Assert.True(factory.FreeBlocks + factory.RentedBlocks > 0, "Kestrel did not rent from the tuning's pool");
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "done", RawHttp.Timeout());
        Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
    }

    [Fact]
    public async Task IdleWebSocketsHoldNoBlockAndBusyOnesStillEcho()
    {
        const int count = 40;
        await using KestrelHost host = await StartAsync(_ => { });
        var factory = host.App.Services.GetRequiredService<WebSocketMemoryPoolFactory>();
        var clients = new List<ClientWebSocket>();
        try
        {
            byte[] message = new byte[1_000]; // one read each
            Random.Shared.NextBytes(message);
            for (int i = 0; i < count; i++)
            {
                var client = new ClientWebSocket();
                clients.Add(client);
                await client.ConnectAsync(host.WebSocketUrl("/echo"), RawHttp.Timeout());
                Assert.Equal(message, await EchoAsync(client, message));
            }

            // Every websocket open and idle: the blocks of their reads and writes are back in the pool.
            long rented = await SettledRentedBlocksAsync(factory);
            Assert.Equal(0, rented);
            Assert.True(factory.FreeBlocks > 0);
            Assert.All(clients, client => Assert.Equal(WebSocketState.Open, client.State));
            foreach (ClientWebSocket client in clients)
            {
                Assert.Equal(message, await EchoAsync(client, message));
            }

            // Plain HTTP on the same host runs on the same pool.
            using var http = new HttpClient { BaseAddress = host.BaseUrl };
            Assert.Equal("hello", await http.GetStringAsync(new Uri("/hello", UriKind.Relative), RawHttp.Timeout()));
        }
        finally
        {
            foreach (ClientWebSocket client in clients)
            {
                await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
                client.Dispose();
            }
        }

        Assert.Equal(0, await SettledRentedBlocksAsync(factory));
    }

    [Fact]
    public async Task TrimReleasesTheBlocksABurstLeftAndTheMeterReportsThem()
    {
        await using KestrelHost host = await StartAsync(tuning => tuning.TrimInterval = TimeSpan.Zero); // trimmed by hand
        var factory = host.App.Services.GetRequiredService<WebSocketMemoryPoolFactory>();
        using var client = new ClientWebSocket();
        await client.ConnectAsync(host.WebSocketUrl("/echo"), RawHttp.Timeout());
        byte[] message = new byte[200_000]; // several blocks in flight at once
        Assert.Equal(message, await EchoAsync(client, message));

        // After a read that took several blocks, Kestrel's receive loop sometimes holds one block until the connection's
        // next bytes (its wait for data came back without any): that one is rented, not free, and trim leaves it.
        Assert.InRange(await SettledRentedBlocksAsync(factory), 0, 1);
        long free = factory.FreeBlocks;
        Assert.True(free >= 2, $"{free} free blocks after a 200 KB echo");

        long observedFree = -1;
        using (var listener = new MeterListener())
        {
            listener.InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Name == "websocketcodec.kestrel.memory_pool.blocks")
                {
                    l.EnableMeasurementEvents(instrument);
                }
            };
            listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
            {
                if (tags.ToArray().Any(tag => tag is { Key: "state", Value: "free" }))
                {
                    observedFree = value;
                }
            });
            listener.Start();
            listener.RecordObservableInstruments();
        }

        Assert.True(observedFree >= free, $"the meter reported {observedFree} free blocks, the factory {free}");

        // The first trim only marks (every block was needed since the pool began); the second releases the blocks no
        // rent needed in between.
        long released = factory.ReleasedBlocks;
        factory.Trim();
        int trimmed = factory.Trim();
        Assert.Equal(free, trimmed);
        Assert.Equal(0, factory.FreeBlocks);
        Assert.Equal(released + free, factory.ReleasedBlocks);

        // The pool grows again on demand.
        Assert.Equal(message, await EchoAsync(client, message));
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
    }

    private static async Task<byte[]> EchoAsync(ClientWebSocket client, byte[] message) =>
        (await EchoRoundTrip.EchoAsync(client, message)).Payload;

    /// <summary>The rented count once it reaches zero (blocks come back as Kestrel's send loop finishes), or its value
    /// after 5 s.</summary>
    private static async Task<long> SettledRentedBlocksAsync(WebSocketMemoryPoolFactory factory)
    {
        long started = Stopwatch.GetTimestamp();
        while (factory.RentedBlocks != 0 && Stopwatch.GetElapsedTime(started) < TimeSpan.FromSeconds(5))
        {
            await Task.Delay(10);
        }

        return factory.RentedBlocks;
    }
}
