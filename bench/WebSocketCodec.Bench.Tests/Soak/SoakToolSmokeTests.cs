using System.Text;
using WebSocketCodec.Soak;
using Xunit.Abstractions;

namespace WebSocketCodec.Bench.Tests.Soak;

/// <summary>The soak tool's smoke mode inside <c>dotnet test</c>: a few thousand seeded frames through each transport
/// (our client over HTTP/1.1 and HTTP/2, cleartext and TLS, and node's ws when node is installed; with and without
/// permessage-deflate) against the sample echo server, every echo and Pong verified, every length boundary met, the
/// pools balanced; and proof that the verifier catches a wrong echo and a deflate transport that runs without the
/// extension.</summary>
public sealed class SoakToolSmokeTests(ITestOutputHelper output)
{
    /// <summary>Every transport of this build's default mix (the SpanNetty ones only in a build with
    /// <c>-p:WithSpanNetty=true</c>, where the SpanNetty solution runs them).</summary>
    public static TheoryData<string> Transports() => [.. SoakOptions.AllTransports];

    [Fact]
    public void TheDefaultMixHasHttp2TlsNodeAndDeflate() =>
        Assert.Superset(
            new HashSet<string>([SoakOptions.H1, SoakOptions.H1Tls, SoakOptions.H2, SoakOptions.H2Tls, SoakOptions.Node, SoakOptions.NodeTls,
                SoakOptions.H1Deflate, SoakOptions.H2Deflate, SoakOptions.NodeDeflate]),
            new HashSet<string>(SoakOptions.AllTransports));

    [SkippableTheory]
    [MemberData(nameof(Transports))]
    public async Task AFewThousandFramesAreAllVerifiedAndThePoolsBalance(string transport)
    {
        var options = new SoakOptions { Frames = 3000, SegmentFrames = 3000, Connections = 2, BoundaryEvery = 2, Transports = [transport], Seed = 5 };
        await SkipUnlessTheNodeClientCanRunAsync(options);
        await using SoakServers servers = await SoakServers.StartAsync();
        SegmentResult result = await SoakSegment.RunAsync(options, SoakMaterial.Create(options.Seed), servers, 0, options.Frames, output.WriteLine, RawHttp.Timeout(120));
        SoakCounts counts = result.Total();
        output.WriteLine($"{counts.Frames} frames, {counts.MessagesVerified} messages, {counts.PingsSent} Pings, {counts.SplitsInsideCharacter} cuts inside characters, server pool {result.ServerPoolRented} rented");

        Assert.Empty(counts.FailureSamples);
        Assert.Equal(0, counts.Failures);
        Assert.Equal(2, counts.Connections);
        Assert.InRange(counts.Frames, options.Frames, options.Frames + 200);
        Assert.Equal(counts.Messages, counts.MessagesVerified);
        Assert.Equal(counts.BytesSent, counts.BytesReceived);
        Assert.True(counts.FragmentedMessages > 0 && counts.SplitsInsideCharacter > 0 && counts.PingsSent > 0, "fragments cut inside characters, with Pings between them");
        Assert.Equal(counts.PingsSent, counts.PingsAnswered);
        Assert.All(counts.BoundarySent, n => Assert.True(n > 0, "every boundary length sent"));
        Assert.All(counts.BoundaryReceived, n => Assert.True(n > 0, "every boundary length echoed"));
        Assert.True(result.ServerPoolRented > 0, "the server joined fragments in the counting pool");
        Assert.Equal(0, result.ServerPoolOutstanding);
        Assert.Equal(0, result.ClientPoolOutstanding);
        if (!SoakOptions.IsDeflate(transport))
        {
            Assert.Equal((0, 0), (counts.CompressedSent, counts.CompressedReceived));
        }
        else if (SoakOptions.IsNode(transport))
        {
            // Counted by a hook on ws's deflate: every message (threshold 0), and of the echoes at least those of the
            // websocket without a small server window (two websockets: two variants).
            Assert.Equal(counts.Messages, counts.CompressedSent);
            Assert.InRange(counts.CompressedReceived, counts.MessagesVerified / 3, counts.MessagesVerified);
        }
        else
        {
            Assert.True(counts.CompressedSent > 0, "whole messages sent compressed");
        }
    }

    /// <summary>A deflate transport against servers that do not accept permessage-deflate: every websocket fails
    /// (the soak must not run uncompressed without saying so), and the pools still balance.</summary>
    [SkippableTheory]
    [InlineData(SoakOptions.H1Deflate)]
    [InlineData(SoakOptions.H2Deflate)]
    [InlineData(SoakOptions.NodeDeflate)]
    public async Task ADeflateTransportWithoutTheExtensionFails(string transport)
    {
        var options = new SoakOptions { Frames = 400, SegmentFrames = 400, Connections = 2, Transports = [transport] };
        await SkipUnlessTheNodeClientCanRunAsync(options);
        await using SoakServers servers = await SoakServers.StartAsync(acceptDeflate: false);
        SegmentResult result = await SoakSegment.RunAsync(options, SoakMaterial.Create(options.Seed), servers, 0, options.Frames, output.WriteLine, RawHttp.Timeout(120));
        SoakCounts counts = result.Total();
        counts.FailureSamples.ForEach(output.WriteLine);

        Assert.Equal(2, counts.Failures);
        Assert.All(counts.FailureSamples, failure => Assert.Contains("offered", failure, StringComparison.Ordinal));
        Assert.All(counts.FailureSamples, failure => Assert.Contains("not negotiated", failure, StringComparison.Ordinal));
        Assert.Equal(0, counts.MessagesVerified);
        Assert.False(result.Passed);
        Assert.Equal(0, result.ServerPoolOutstanding);
        Assert.Equal(0, result.ClientPoolOutstanding);
    }

    [SkippableTheory]
    [InlineData(SoakOptions.H1)]
    [InlineData(SoakOptions.H2Tls)]
    [InlineData(SoakOptions.Node)]
    [InlineData(SoakOptions.H2Deflate)]
    [InlineData(SoakOptions.NodeDeflate)]
    public async Task AChangedByteInAnEchoIsAFailure(string transport)
    {
        var options = new SoakOptions { Frames = 2000, SegmentFrames = 2000, Connections = 2, Transports = [transport] };
        await SkipUnlessTheNodeClientCanRunAsync(options);
        await using SoakServers servers = await SoakServers.StartCorruptingAsync(corruptEvery: 5);
        SegmentResult result = await SoakSegment.RunAsync(options, SoakMaterial.Create(options.Seed), servers, 0, options.Frames, output.WriteLine, RawHttp.Timeout(120));
        SoakCounts counts = result.Total();
        counts.FailureSamples.ForEach(output.WriteLine);

        Assert.Equal(2, counts.Failures); // each websocket stops at its first wrong echo
        Assert.All(counts.FailureSamples, failure => Assert.Contains("the echo differs from what was sent", failure, StringComparison.Ordinal));
        Assert.False(result.Passed);
        Assert.Equal(0, result.ServerPoolOutstanding); // aborted websockets give their buffers back too
    }

    [Fact]
    public void TheTrafficIsTheSameForTheSameSeedAndFollowsTheRules()
    {
        SoakMaterial material = SoakMaterial.Create(3);
        var a = new SoakTraffic(material, 3, 0, 1);
        var b = new SoakTraffic(SoakMaterial.Create(3), 3, 0, 1);
        var other = new SoakTraffic(material, 3, 0, 2);
        var sizes = new int[3];
        int fragmented = 0, differ = 0;
        var boundaries = new HashSet<int>();
        var strict = new UTF8Encoding(false, throwOnInvalidBytes: true);
        for (int i = 0; i < 4000; i++)
        {
            SoakMessage x = a.Next(System.Buffers.ArrayPool<byte>.Shared);
            SoakMessage y = b.Next(System.Buffers.ArrayPool<byte>.Shared);
            SoakMessage z = other.Next(System.Buffers.ArrayPool<byte>.Shared);
            Assert.Equal(x.Opcode, y.Opcode);
            Assert.True(x.Payload.SequenceEqual(y.Payload));
            Assert.Equal(x.FragmentEnds, y.FragmentEnds);
            differ += x.Payload.SequenceEqual(z.Payload) ? 0 : 1;
            if (x.Opcode == WebSocketOpcode.Text)
            {
                strict.GetString(x.Payload); // valid UTF-8, whatever the length
            }

            sizes[SoakTraffic.SizeClass(x.Length)]++;
            fragmented += x.IsFragmented ? 1 : 0;
            if (SoakTraffic.BoundaryIndex(x.Length) >= 0)
            {
                boundaries.Add(x.Length);
            }

            x.Return(System.Buffers.ArrayPool<byte>.Shared);
            y.Return(System.Buffers.ArrayPool<byte>.Shared);
            z.Return(System.Buffers.ArrayPool<byte>.Shared);
        }

        Assert.True(differ > 3900, "another connection has other traffic");
        Assert.InRange(sizes[0], 2600, 3000); // 70 %
        Assert.InRange(sizes[1], 850, 1150); // 25 %
        Assert.InRange(sizes[2], 120, 280); // 5 %
        Assert.InRange(fragmented, 700, 900); // 20 %
        Assert.Equal(SoakTraffic.Boundaries.Order(), boundaries.Order());
    }

    [Fact]
    public async Task ARerunContinuesFromTheStateFileAndTheReportSaysItIsComplete()
    {
        string directory = Directory.CreateTempSubdirectory("soak-state").FullName;
        try
        {
            var options = new SoakOptions
            {
                Frames = 1500, SegmentFrames = 1000, Connections = 2, Transports = [SoakOptions.H1],
                StatePath = Path.Combine(directory, "soak.state"), ReportPath = Path.Combine(directory, "soak.md"),
            };
            var lines = new List<string>();
            SoakState first = await SoakRun.RunAsync(options, "first", lines.Add, RawHttp.Timeout(120));
            Assert.Equal(2, first.Segments.Count); // 1000 + 500
            Assert.All(first.Segments, s => Assert.True(s.Passed));

            SoakState again = await SoakRun.RunAsync(options, "again", lines.Add, RawHttp.Timeout(120));
            Assert.Equal(2, again.Segments.Count); // nothing left to run
            Assert.Contains(lines, line => line.StartsWith("continuing", StringComparison.Ordinal));
            string report = await File.ReadAllTextAsync(options.ReportPath);
            Assert.Contains("**Complete: 2 of 2 segments", report, StringComparison.Ordinal);
            Assert.Contains("0 failures, pools balanced", report, StringComparison.Ordinal);
            Assert.All(again.Segments, s => Assert.Equal(ResultsStamp.CurrentCommit(), s.Commit)); // each segment records its commit
            ResultsStamp? stamp = ResultsStamp.Parse(report);
            Assert.NotNull(stamp);
            Assert.Equal((ResultsStamp.CurrentCommit(), again.Segments[^1].FinishedUtc + " UTC", ResultsStamp.CpuModel()), (stamp.Commit, stamp.Date, stamp.Cpu));

            await Assert.ThrowsAsync<InvalidOperationException>(() => SoakRun.RunAsync(options with { Seed = 9 }, "other", null, RawHttp.Timeout(60)));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>For node's transports: skipped (with the reason) when node or npm is missing or the registry cannot be
    /// reached; a machine without the peer is not a failure of the code, nor a pass. Any other install failure fails.</summary>
    private static async Task SkipUnlessTheNodeClientCanRunAsync(SoakOptions options)
    {
        if (!options.Transports.Any(SoakOptions.IsNode))
        {
            return;
        }

        string? reason = await NpmInstall.EnsureAsync(options.NodeDirectory, "ws");
        Skip.If(reason is not null, reason);
    }
}
