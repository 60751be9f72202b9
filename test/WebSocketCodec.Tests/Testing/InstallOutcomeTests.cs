using WebSocketCodec.Testing;

namespace WebSocketCodec.Tests.Testing;

/// <summary>The line between "this machine cannot reach its package source" (a skip) and "the install is broken" (a
/// failure), on installer output as npm, apt-get and NuGet print it.</summary>
public sealed class InstallOutcomeTests
{
    [Theory]
    [InlineData("npm error code ENOTFOUND\nnpm error syscall getaddrinfo\nnpm error errno ENOTFOUND", "npm error code ENOTFOUND")]
    [InlineData("npm error code EAI_AGAIN\nnpm error request to https://example.invalid/ws failed", "npm error code EAI_AGAIN")]
    [InlineData("npm ERR! code ECONNREFUSED", "npm ERR! code ECONNREFUSED")]
    [InlineData("Err:1 http://deb.example stable InRelease\n  Temporary failure resolving 'deb.example'", "Temporary failure resolving 'deb.example'")]
    [InlineData("W: Failed to fetch http://deb.example/dists/stable/InRelease  Could not connect to deb.example:80", "W: Failed to fetch http://deb.example/dists/stable/InRelease  Could not connect to deb.example:80")]
    public void AnUnreachableSourceIsNamedByItsLine(string output, string line) =>
        Assert.Equal(line, InstallOutcome.UnreachableLine(output));

    [Theory]
    [InlineData("npm error code EUSAGE\nnpm error `npm ci` can only install packages when your package.json and package-lock.json are in sync.")]
    [InlineData("npm error code E404\nnpm error 404 Not Found - GET https://registry/wss - Not found")]
    [InlineData("npm error code EINTEGRITY\nnpm error sha512-abc integrity checksum failed")]
    [InlineData("E: Unable to locate package chromium-nonexistent")]
    [InlineData("dpkg: error processing package chromium (--configure):")]
    [InlineData("")]
    public void AnyOtherFailureIsTheProjectsOwn(string output) =>
        Assert.Null(InstallOutcome.UnreachableLine(output));

    [Fact]
    public void NuGetSkipsOnlyWhenNu1301IsTheOnlyError()
    {
        const string unreachable = "/x/a.csproj : error NU1301: Unable to load the service index for source https://feed/index.json.";
        Assert.Equal(unreachable, InstallOutcome.NuGetUnreachableLine("Determining projects to restore...\n" + unreachable + "\n"));
        Assert.Null(InstallOutcome.NuGetUnreachableLine(unreachable + "\n/x/b.csproj : error NU1101: Unable to find package WebSocketCodec."));
        Assert.Null(InstallOutcome.NuGetUnreachableLine("/x/b.csproj : error NU1102: Unable to find package X with version (>= 9.0.0)"));
        Assert.Null(InstallOutcome.NuGetUnreachableLine("Program.cs(3,1): error CS0103: The name 'x' does not exist"));
    }
}
