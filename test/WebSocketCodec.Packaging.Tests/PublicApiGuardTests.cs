using WebSocketCodec.Packaging.Tests.Infrastructure;

namespace WebSocketCodec.Packaging.Tests;

/// <summary>
/// The public API guard (src/Directory.Build.props): a public member that PublicAPI.Shipped.txt/Unshipped.txt do not
/// declare fails the build with RS0016. The core project is built as it is, once with an extra internal type (it builds)
/// and once with an extra public type (it fails), the extra file brought in through MSBuild's
/// CustomAfterMicrosoftCommonTargets hook, and bin/obj in a temporary artifacts folder, so the repository is untouched.
/// </summary>
public sealed class PublicApiGuardTests
{
    private static readonly TimeSpan BuildTimeout = TimeSpan.FromMinutes(5);

    [Fact]
    public async Task AnUndeclaredPublicMemberFailsTheBuildWithRS0016()
    {
        using var temp = new TempFolder("wsc-api-guard");
        string probe = temp.Combine("PublicApiGuardProbe.cs");
        string hook = temp.Write("probe.targets", $"""
            <Project>
              <ItemGroup>
                <Compile Include="{probe}" />
              </ItemGroup>
            </Project>
            """);

        File.WriteAllText(probe, """
            namespace WebSocketCodec;

            internal static class PublicApiGuardProbe
            {
                internal static int Answer => 42;
            }
            """);
        (int exitCode, string output) = await BuildCoreAsync(temp, hook);
        Assert.True(exitCode == 0, "the core with an extra internal member must build:\n" + output);

        File.WriteAllText(probe, """
            namespace WebSocketCodec;

            /// <summary>Not declared in PublicAPI.*.txt.</summary>
            public static class PublicApiGuardProbe
            {
                /// <summary>Not declared either.</summary>
                public static int Answer => 42;
            }
            """);
        (exitCode, output) = await BuildCoreAsync(temp, hook);
        Assert.NotEqual(0, exitCode);
        string[] errors = output.Split('\n').Where(line => line.Contains(": error ", StringComparison.Ordinal)).ToArray();
        Assert.NotEmpty(errors);
        // Every error is the guard's, about the probe: the build failed for that reason and no other.
        Assert.All(errors, line => Assert.Contains("error RS0016", line, StringComparison.Ordinal));
        Assert.Contains(errors, line => line.Contains("PublicApiGuardProbe.Answer", StringComparison.Ordinal));
    }

    private static Task<(int ExitCode, string Output)> BuildCoreAsync(TempFolder temp, string hook) =>
        DotnetProcess.RunAsync(
            temp.Path,
            [
                "build", Repository.Source("WebSocketCodec"), "-c", Repository.Configuration, "--disable-build-servers",
                "--artifacts-path", temp.Combine("artifacts"), "-p:CustomAfterMicrosoftCommonTargets=" + hook,
            ],
            BuildTimeout);
}
