using System.Globalization;
using System.Net;
using System.Net.WebSockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.PerfTest;

/// <summary>The server process of one variant: prints <c>port N</c>, then answers <c>gc</c> on stdin with its
/// collection counts and allocated bytes, <c>memory</c> with its memory after a forced compacting collection (see
/// <see cref="MemoryReport"/>), and stops when stdin ends.</summary>
internal static class PerfServer
{
    /// <summary>The library's defaults, except the cap on open websockets: the scale tool opens 19,000.</summary>
    private static void Accept(WebSocketAcceptOptions accept) => accept.MaxConcurrentWebSockets = 1_000_000;

    /// <summary>With <c>--deflate</c>: permessage-deflate accepted as the client offers it, at zlib's default level (6,
    /// <see cref="System.IO.Compression.CompressionLevel.Optimal"/>), the level ASP.NET Core's ManagedWebSocket always
    /// uses, so both servers do the same zlib work.</summary>
    private static Action<WebSocketAcceptOptions> AcceptDeflate(System.IO.Compression.CompressionLevel level) => accept =>
    {
        Accept(accept);
        accept.Deflate = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, Level = level };
    };

    /// <summary>Runs the server; with <paramref name="deflate"/> our variants compress at <paramref name="level"/>
    /// (<c>optimal</c>, zlib's 6, by default; <c>fastest</c> is our library's default) and the <c>aspnetcore</c> echo
    /// receives into <paramref name="receiveBuffer"/> bytes per websocket (0: 64 KiB).</summary>
    public static async Task<int> RunAsync(string variant, bool tls, bool http2, bool deflate = false, string level = DeflateMode.Optimal, int receiveBuffer = 0)
    {
        if (Variants.OnLean.Contains(variant))
        {
            return http2 ? await RefuseAsync($"variant '{variant}' is not available over HTTP/2") : await RunLeanAsync(variant, tls, deflate, level);
        }

        (variant, string? tuning) = Variants.SplitTuning(variant);
        if (!(http2 ? Variants.OverHttp2 : Variants.All).Contains(variant))
        {
            await Console.Error.WriteLineAsync($"variant '{variant}' is not available{(http2 ? " over HTTP/2" : "")}");
            return 2;
        }

        if (deflate && DeflateMode.Refusal(variant) is { } refusal)
        {
            await Console.Error.WriteLineAsync(refusal);
            return 2;
        }

        Action<WebSocketAcceptOptions> accept = deflate ? AcceptDeflate(DeflateMode.Level(level)) : Accept;

        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        if (tuning is not null)
        {
            builder.Services.AddKestrelWebSocketTuning(kestrel =>
            {
                kestrel.BlockSize = int.TryParse(Environment.GetEnvironmentVariable("PERF_BLOCK_SIZE"), CultureInfo.InvariantCulture, out int size) ? size : kestrel.BlockSize;
                kestrel.InlineScheduling = tuning == Variants.TunedInline;
            });
        }

        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.AddServerHeader = false;
            kestrel.ConfigureHttp2ForWebSockets(maxStreamsPerConnection: 256);
            kestrel.Listen(IPAddress.Loopback, 0, listen =>
            {
                listen.Protocols = http2 ? HttpProtocols.Http2 : HttpProtocols.Http1; // h2c prior knowledge, or ALPN h2
                if (tls)
                {
                    listen.UseHttps(SelfSignedCertificate.Create());
                }

                switch (variant)
                {
                    case Variants.Ours:
                        listen.UseWebSockets((_, channel) => channel.RunAsync(sender => new FrameEchoListener(sender)), configure: Accept);
                        break;
                    case Variants.OursBulk:
                        listen.UseWebSockets((_, channel) => channel.RunAsync(sender => new BulkEchoListener(sender)), configure: Accept);
                        break;
                    case Variants.OursMessages:
                        listen.UseWebSockets((_, channel) => channel.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, EchoMessage)), configure: Accept);
                        break;
                    case Variants.Raw:
                        listen.Run(RawEcho.ConnectionAsync);
                        break;
                }
            });
        });
        WebApplication app = builder.Build();
        switch (variant)
        {
            case Variants.OursEndpoint:
                app.MapWebSocket("/", (_, sender) => new FrameEchoListener(sender), accept);
                break;
            case Variants.OursEndpointMessages:
                app.MapWebSocket("/", (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, EchoMessage), accept);
                break;
            case Variants.AspNetCore:
                app.UseWebSockets(new WebSocketOptions { KeepAliveInterval = TimeSpan.Zero });
                app.Run(deflate ? DeflateBuiltinEcho.Echo(receiveBuffer > 0 ? receiveBuffer : DeflateBuiltinEcho.DefaultBuffer) : BuiltinEcho.EchoAsync); // the echo server sample's --codec builtin
                break;
            case Variants.RawUpgrade:
                app.Run(RawEcho.UpgradeAsync);
                break;
        }

        using var allocations = new AllocationSampler();
        await app.StartAsync();
        string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        Console.WriteLine($"port {new Uri(address).Port}");
        await AnswerCommandsAsync(allocations);
        await app.StopAsync();
        return 0;
    }

    /// <summary>The lean transport's server: one loop per core the process may use (one, pinned).</summary>
    private static async Task<int> RunLeanAsync(string variant, bool tls, bool deflate, string level)
    {
        var accept = new WebSocketAcceptOptions();
        (deflate ? AcceptDeflate(DeflateMode.Level(level)) : Accept)(accept);
        using var allocations = new AllocationSampler();
        await using var server = WebSocketCodec.Lean.LeanWebSocketServer.Start(
            new WebSocketCodec.Lean.LeanWebSocketServerOptions
            {
                Accept = accept,
                ReceiveBufferSize = int.TryParse(Environment.GetEnvironmentVariable("PERF_RECEIVE_BUFFER"), CultureInfo.InvariantCulture, out int receive) ? receive : new WebSocketCodec.Lean.LeanWebSocketServerOptions().ReceiveBufferSize,
                LoopCount = int.TryParse(Environment.GetEnvironmentVariable("PERF_LOOPS"), CultureInfo.InvariantCulture, out int loops) ? loops : new WebSocketCodec.Lean.LeanWebSocketServerOptions().LoopCount,
                Tls = tls ? new System.Net.Security.SslServerAuthenticationOptions { ServerCertificate = SelfSignedCertificate.Create() } : null,
            },
            (_, sender) => variant == Variants.Lean
                ? new FrameEchoListener(sender)
                : new WebSocketMessageListener<WebSocketFrameSender>(sender, EchoMessage));
        Console.WriteLine($"port {server.EndPoint.Port}");
        await AnswerCommandsAsync(allocations);
        return 0;
    }

    private static async Task<int> RefuseAsync(string message)
    {
        await Console.Error.WriteLineAsync(message);
        return 2;
    }

    /// <summary>Answers <c>gc</c> and <c>memory</c> until stdin ends.</summary>
    private static async Task AnswerCommandsAsync(AllocationSampler allocations)
    {
        while (await Console.In.ReadLineAsync() is { } command)
        {
            if (command == "gc")
            {
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"gc {GC.CollectionCount(0)} {GC.CollectionCount(1)} {GC.CollectionCount(2)} {GC.GetTotalAllocatedBytes(precise: true)} {allocations.TakeSummary()}"));
            }
            else if (command == "memory")
            {
                Console.WriteLine(MemoryReport.Measure());
            }
        }
    }

    private static void EchoMessage(WebSocketFrameSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload)
    {
        if (sender.CanSend)
        {
            sender.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload);
        }
    }
}
