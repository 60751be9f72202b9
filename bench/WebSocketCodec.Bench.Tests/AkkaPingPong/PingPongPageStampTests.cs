using WebSocketCodec.Akka.PingPong;
using WebSocketCodec.Akka.PingPong.Run;

namespace WebSocketCodec.Bench.Tests.AkkaPingPong;

/// <summary>The page RemotePingPong writes carries the results stamp with the command it was given; the JSON and CSV
/// beside it keep every run, warm-ups included.</summary>
public sealed class PingPongPageStampTests
{
    [Fact]
    public async Task ThePageIsStampedAndTheRawRunsKeepTheWarmUp()
    {
        string directory = Directory.CreateTempSubdirectory("pingpong-page").FullName;
        try
        {
            PingPongMeasurement[] results =
            [
                new() { Variant = PingPongVariants.DotNettyNoBatching, Clients = 1, Repeat = 0, RoundTrips = 100, Status = RunStatus.Ok, MessagesPerSecond = 10, Batching = false },
                new() { Variant = PingPongVariants.DotNettyNoBatching, Clients = 1, Repeat = 1, RoundTrips = 1000, Status = RunStatus.Ok, MessagesPerSecond = 20, Batching = false },
            ];
            string page = Path.Combine(directory, "pp.md");

            await PingPongReport.WriteAsync(page, results, new PingPongOptions { Variants = [PingPongVariants.DotNettyNoBatching], Repeat = 1 }, "pingpong --x");

            ResultsStamp? stamp = ResultsStamp.Parse(await File.ReadAllTextAsync(page));
            Assert.NotNull(stamp);
            Assert.Equal(("`pingpong --x`", ResultsStamp.CurrentCommit()), (stamp.Command, stamp.Commit));
            Assert.Equal(results, PingPongReport.FromJson(await File.ReadAllTextAsync(Path.Combine(directory, "pp.json"))));
            Assert.Contains("dotnetty-nobatch,,off,1,0,0,100,Ok,", await File.ReadAllTextAsync(Path.Combine(directory, "pp.csv")), StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
