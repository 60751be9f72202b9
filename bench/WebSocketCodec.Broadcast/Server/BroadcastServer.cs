using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Net.WebSockets;
using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Broadcast.Server;

/// <summary>
/// The server process of one variant: Kestrel on 127.0.0.1 (HTTP/1.1), websockets at <c>/</c> that only read (to see
/// the close). Prints <c>port N</c>, then obeys one-byte commands on stdin (read on a thread of its own, without
/// allocating): <c>b</c> broadcasts the next message (payload: <see cref="Stopwatch.GetTimestamp"/> at the start, 8 bytes,
/// then the sequence number, 4 bytes, then zeros to the payload size), <c>c</c> prints <c>members N</c>, <c>m</c> marks
/// the start of the measured window (CPU time, allocated bytes, collections) and prints <c>marked</c>, <c>r</c> prints the window's
/// <see cref="ServerReport"/> as JSON; the end of stdin stops it. Keep-alive Pings are off in every variant. A
/// websocket upgraded at <c>/?stalled</c> is filled until it is not writable before it joins (see
/// <see cref="StalledMembers"/>). A broadcast that has not returned within <paramref name="holdBound"/> (a loop
/// waiting on a stalled member) marks the run held: later <c>b</c> commands are ignored and the report says after how
/// many broadcasts it was held. With <c>--relay</c> (the burst mode; group variants only) the group closes slow members
/// (<see cref="SlowMemberPolicy.Close"/>, the session's default water marks, hard limit and slow-consumer timeout) and
/// every message a member sends goes to the whole group (<see cref="RelayListener"/>); the report counts them.
/// </summary>
internal static class BroadcastServer
{
    public static async Task<int> RunAsync(string variant, int payloadLength, bool allocationTypes, TimeSpan holdBound, bool relay = false)
    {
        var stalled = new StalledMembers();
        if (relay && variant is not (BroadcastVariants.Group or BroadcastVariants.GroupFastPath or BroadcastVariants.GroupLean))
        {
            throw new ArgumentException($"--relay is for the group variants, not '{variant}'", nameof(variant));
        }

        var relayed = new RelayCounts();
        IFanOut fanOut = variant switch
        {
            BroadcastVariants.Group or BroadcastVariants.GroupFastPath or BroadcastVariants.GroupLean => new GroupFanOut(relay ? SlowMemberPolicy.Close : SlowMemberPolicy.Skip),
            BroadcastVariants.SenderLoop => new SenderLoopFanOut(),
            BroadcastVariants.AspNetLoop => new AspNetLoopFanOut(),
            _ => throw new ArgumentException($"unknown variant '{variant}'", nameof(variant)),
        };

        if (variant == BroadcastVariants.GroupLean)
        {
            return await RunLeanAsync((GroupFanOut)fanOut, payloadLength, allocationTypes, holdBound, relay, stalled, relayed);
        }

        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.AddServerHeader = false;
            kestrel.Listen(IPAddress.Loopback, 0, listen =>
            {
                if (variant == BroadcastVariants.GroupFastPath)
                {
                    var groupFanOut = (GroupFanOut)fanOut;
                    WebSocketGroup group = groupFanOut.Group;
                    listen.UseWebSockets((accepted, connection) => HoldAsync(connection, c => group.Add(c.Driver), c => group.Remove(c.Driver), StalledMembers.IsStalled(accepted.Target) ? stalled : null, Listener(groupFanOut, relay, relayed), CancellationToken.None), configure: Accept);
                }
            });
        });
        WebApplication app = builder.Build();
        switch (fanOut)
        {
            case GroupFanOut when variant == BroadcastVariants.GroupFastPath:
                break;
            case GroupFanOut group:
                app.MapWebSocket("/", (HttpContext context, WebSocketConnection connection) => HoldAsync(connection, c => group.Group.Add(c.Driver), c => group.Group.Remove(c.Driver), Stalled(context, stalled), Listener(group, relay, relayed), context.RequestAborted), Accept);
                break;
            case SenderLoopFanOut loop:
                app.MapWebSocket("/", (HttpContext context, WebSocketConnection connection) => HoldAsync(connection, c => { loop.Members.Add(c); return true; }, loop.Members.Remove, Stalled(context, stalled), new IdleListener(), context.RequestAborted), Accept);
                break;
            case AspNetLoopFanOut loop:
                app.UseWebSockets(new WebSocketOptions { KeepAliveInterval = TimeSpan.Zero });
                app.Run(context => HoldAsync(context, loop.Members, Stalled(context, stalled)));
                break;
        }

        await app.StartAsync();
        int port = new Uri(app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First()).Port;
        Console.Out.WriteLine($"port {port}");
        Console.Out.Flush();

        var commands = new Thread(() => Obey(fanOut, payloadLength, allocationTypes ? new AllocationTypes() : null, stalled, holdBound, relayed)) { IsBackground = true, Name = "broadcast commands" };
        commands.Start();
        await Task.Run(commands.Join);
        using var stopping = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        await app.StopAsync(stopping.Token);
        return 0;
    }

    /// <summary>The group on the lean transport: each websocket joins as it opens and leaves as it ends.</summary>
    private static async Task<int> RunLeanAsync(
        GroupFanOut group, int payloadLength, bool allocationTypes, TimeSpan holdBound, bool relay, StalledMembers stalled, RelayCounts relayed)
    {
        var accept = new WebSocketAcceptOptions();
        Accept(accept);
        await using (var server = WebSocketCodec.Lean.LeanWebSocketServer.Start(
            new WebSocketCodec.Lean.LeanWebSocketServerOptions { Accept = accept, ShutdownTimeout = TimeSpan.FromSeconds(5) },
            (request, sender) =>
            {
                if (StalledMembers.IsStalled(request.Target))
                {
                    throw new NotSupportedException("group-lean has no stalled members");
                }

                group.Group.Add(sender.Driver);
                return new LeavingListener(Listener(group, relay, relayed), () => group.Group.Remove(sender.Driver));
            }))
        {
            Console.Out.WriteLine($"port {server.EndPoint.Port}");
            Console.Out.Flush();
            var commands = new Thread(() => Obey(group, payloadLength, allocationTypes ? new AllocationTypes() : null, stalled, holdBound, relayed)) { IsBackground = true, Name = "broadcast commands" };
            commands.Start();
            await Task.Run(commands.Join);
        }

        return 0;
    }

    /// <summary>A listener that also leaves the group when its websocket ends.</summary>
    private sealed class LeavingListener(IWebSocketFrameListener inner, Action leave) : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload) => inner.OnFrame(opcode, fin, rsv, payload);

        public void OnPong(ReadOnlySpan<byte> payload) => inner.OnPong(payload);

        public ValueTask OnReadCompleteAsync(CancellationToken cancellationToken) => inner.OnReadCompleteAsync(cancellationToken);

        public void OnWritabilityChanged(bool writable) => inner.OnWritabilityChanged(writable);

        public void OnClose(WebSocketCloseInfo info)
        {
            leave();
            inner.OnClose(info);
        }
    }

    private static void Accept(WebSocketAcceptOptions accept)
    {
        accept.MaxConcurrentWebSockets = 1_000_000;
        accept.Session = WebSocketSessionOptions.Default with { KeepAliveInterval = TimeSpan.Zero };
    }

    private static IWebSocketFrameListener Listener(GroupFanOut group, bool relay, RelayCounts counts) =>
        relay ? new RelayListener(group, counts) : new IdleListener();

    private static StalledMembers? Stalled(HttpContext context, StalledMembers stalled) =>
        StalledMembers.IsStalled(context.Request.QueryString.Value) ? stalled : null;

    private static async Task HoldAsync(
        WebSocketConnection connection, Func<WebSocketConnection, bool> join, Action<WebSocketConnection> leave, StalledMembers? stalled, IWebSocketFrameListener listener, CancellationToken aborted)
    {
        Task running;
        if (stalled is null)
        {
            join(connection);
            running = connection.RunAsync(listener, aborted);
        }
        else
        {
            running = connection.RunAsync(listener, aborted); // running, so its flushes complete while it is filled
            await stalled.FillAsync(connection);
            join(connection);
            stalled.Joined();
        }

        try
        {
            await running;
        }
        finally
        {
            leave(connection);
            stalled?.Left();
        }
    }

    private static async Task HoldAsync(HttpContext context, MemberList<WebSocket> members, StalledMembers? stalled)
    {
        if (!context.WebSockets.IsWebSocketRequest)
        {
            context.Response.StatusCode = StatusCodes.Status400BadRequest;
            return;
        }

        using WebSocket webSocket = await context.WebSockets.AcceptWebSocketAsync();
        try
        {
            if (stalled is not null)
            {
                await stalled.FillAsync(webSocket, context.RequestAborted);
                stalled.Joined();
            }

            members.Add(webSocket);
            byte[] buffer = new byte[256];
            while (true)
            {
                ValueWebSocketReceiveResult result = await webSocket.ReceiveAsync(buffer.AsMemory(), context.RequestAborted);
                if (result.MessageType == WebSocketMessageType.Close)
                {
                    await webSocket.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, null, CancellationToken.None);
                    return;
                }
            }
        }
        catch (Exception error) when (error is WebSocketException or OperationCanceledException or IOException)
        {
            // The client went away.
        }
        finally
        {
            members.Remove(webSocket);
            stalled?.Left();
        }
    }

    /// <summary>The command loop (its own thread): a broadcast runs here, and a loop variant's awaits block it.</summary>
    private static void Obey(IFanOut fanOut, int payloadLength, AllocationTypes? sampler, StalledMembers stalled, TimeSpan holdBound, RelayCounts relayed)
    {
        using Stream input = Console.OpenStandardInput();
        byte[] commands = new byte[64];
        byte[] payload = new byte[payloadLength];
        int sequence = 0, broadcasts = 0, completed = 0;
        int? heldAfter = null;
        long skipped = 0, closed = 0, relayedAtMark = 0;
        string? error = null;
        TimeSpan cpu = default, user = default;
        long allocated = 0;
        int[] collections = new int[3];
        using AllocationTypes? sampling = sampler;
        int read;
        while ((read = input.Read(commands)) > 0)
        {
            for (int i = 0; i < read; i++)
            {
                switch ((char)commands[i])
                {
                    case 'b' when heldAfter is not null:
                        break; // the held broadcast never returned: the run is over
                    case 'b':
                        BinaryPrimitives.WriteInt64LittleEndian(payload, Stopwatch.GetTimestamp());
                        BinaryPrimitives.WriteInt32LittleEndian(payload.AsSpan(8), sequence++);
                        try
                        {
                            ValueTask sent = fanOut.BroadcastAsync(payload);
                            if (!sent.IsCompletedSuccessfully)
                            {
                                Task pending = sent.AsTask();
                                if (!pending.Wait(holdBound))
                                {
                                    heldAfter = completed;
                                    _ = pending.ContinueWith(static t => _ = t.Exception, TaskScheduler.Default);
                                    break;
                                }

                                pending.GetAwaiter().GetResult();
                            }

                            completed++;
                        }
                        catch (Exception e)
                        {
                            Exception shown = e is AggregateException { InnerException: { } inner } ? inner : e; // from Wait
                            error ??= shown.GetType().Name + ": " + shown.Message;
                        }

                        broadcasts++;
                        break;
                    case 'c':
                        Console.Out.WriteLine($"members {fanOut.Count}");
                        Console.Out.Flush();
                        break;
                    case 'm':
                        (cpu, user) = ProcessCpu.Now();
                        for (int g = 0; g < 3; g++)
                        {
                            collections[g] = GC.CollectionCount(g);
                        }

                        broadcasts = 0;
                        skipped = fanOut.Skipped;
                        closed = fanOut.Closed;
                        relayedAtMark = Interlocked.Read(ref relayed.Relayed);
                        sampler?.Reset();
                        allocated = GC.GetTotalAllocatedBytes(precise: true);
                        Console.Out.WriteLine("marked"); // the burst mode waits for it (its messages come from the clients, not this stdin)
                        Console.Out.Flush();
                        break;
                    case 'r':
                        long allocatedNow = GC.GetTotalAllocatedBytes(precise: true);
                        (TimeSpan cpuNow, TimeSpan userNow) = ProcessCpu.Now();
                        var report = new ServerReport
                        {
                            Broadcasts = broadcasts,
                            Members = fanOut.Count,
                            CpuMs = (cpuNow - cpu).TotalMilliseconds,
                            UserCpuMs = (userNow - user).TotalMilliseconds,
                            AllocatedBytes = allocatedNow - allocated,
                            Collections = [.. Enumerable.Range(0, 3).Select(g => GC.CollectionCount(g) - collections[g])],
                            AllocationTypes = sampler?.Summary(),
                            Error = error,
                            HeldAfter = heldAfter,
                            Skipped = fanOut.Skipped - skipped,
                            Closed = fanOut.Closed - closed,
                            ClosedInAll = fanOut.Closed,
                            Relayed = Interlocked.Read(ref relayed.Relayed) - relayedAtMark,
                            Fragments = Interlocked.Read(ref relayed.Fragments),
                            SlowEnded = Volatile.Read(ref relayed.SlowEnded),
                            LastRelayReturned = Interlocked.Read(ref relayed.LastReturned),
                            StalledMembers = stalled.Members,
                            StalledNotFilled = stalled.NotFilled,
                        };
                        Console.Out.WriteLine(JsonSerializer.Serialize(report, Json));
                        Console.Out.Flush();
                        break;
                }
            }
        }
    }

    internal static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);

    /// <summary>Our endpoint's websocket listener: it only reads (the library answers Pings and the close).</summary>
    private sealed class IdleListener : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
        }
    }
}
