/** Which ssh options the app's page may pass on: a short list that only says how to reach the host. */
import { describe, expect, it } from 'vitest';
import { PAGE_SSH_OPTIONS, pageSshOptionsProblem } from '../../../src-main/workflows/remote/page-ssh-options';

describe('ssh options from the page', () => {
  it.each([
    ['Port=2222'],
    ['port=22'],
    ['User=bench'],
    ['User=first.last_1'],
    ['IdentityFile=~/.ssh/id_ed25519'],
    ['IdentityFile=C:\\Users\\me\\.ssh\\id_ed25519'],
    ['IdentitiesOnly=yes'],
    ['ConnectTimeout=5'],
    ['ConnectionAttempts=3'],
    ['ServerAliveInterval=15'],
    ['ServerAliveCountMax=4'],
    ['TCPKeepAlive=no'],
    ['Compression=yes'],
    ['AddressFamily=inet6'],
    ['BatchMode=yes'],
    ['StrictHostKeyChecking=accept-new'],
    ['StrictHostKeyChecking=YES'],
  ])('passes %s', (o) => {
    expect(pageSshOptionsProblem([o])).toBeNull();
  });

  it.each([
    ['ProxyCommand=touch /tmp/x'],
    ['ProxyJump=evil'],
    ['LocalCommand=touch /tmp/x'],
    ['PermitLocalCommand=yes'],
    ['KnownHostsCommand=/bin/sh -c x'],
    ['Include=/tmp/config'],
    ['Match=exec "touch /tmp/x"'],
    ['PKCS11Provider=/tmp/x.so'],
    ['SecurityKeyProvider=/tmp/x.so'],
    ['ForwardAgent=yes'],
    ['ControlPath=/tmp/sock'],
    ['ControlMaster=auto'],
    ['RemoteCommand=x'],
  ])('refuses %s and names the options it takes', (o) => {
    const said = pageSshOptionsProblem(['Port=22', o]);
    expect(said).toBe(
      `SSH options: "${o}" is not taken from the app; it passes on only ${PAGE_SSH_OPTIONS.join(', ')}. Set others for this host in your ~/.ssh/config, or use the CLI's --ssh-option.`,
    );
    expect(said).toContain('Port, User, IdentityFile');
  });

  it.each([
    ['Port=22x'],
    ['Port=1234567'],
    ['ConnectTimeout=-1'],
    ['ServerAliveInterval=1 ProxyCommand=x'],
    ['User=-oProxyCommand'],
    ['User=a b'],
    ['User=%r'],
    ['IdentityFile=/a b'],
    ['IdentityFile="/a"'],
    ["IdentityFile='/a'"],
    ['BatchMode=no'],
    ['StrictHostKeyChecking=no'],
    ['StrictHostKeyChecking=off'],
    ['IdentitiesOnly=maybe'],
    ['AddressFamily=unix'],
    ['Compression=yess'],
    ['TCPKeepAlive=notno'],
    ['AddressFamily=xinet'],
    ['AddressFamily=inet6x'],
    ['BatchMode=notyes'],
    ['BatchMode=yesno'],
    ['StrictHostKeyChecking=notyes'],
    ['StrictHostKeyChecking=accept-newer'],
  ])('refuses the value of %s', (o) => {
    const name = PAGE_SSH_OPTIONS.find((n) => n.toLowerCase() === o.slice(0, o.indexOf('=')).toLowerCase());
    expect(pageSshOptionsProblem([o])).toBe(`SSH options: "${o}" is not a value the app passes on for ${name}.`);
  });

  it('reads a known-hosts file only beside StrictHostKeyChecking=yes (accept-new would write to it)', () => {
    const file = ['UserKnownHostsFile=/k/known_hosts', 'GlobalKnownHostsFile=/dev/null'];
    expect(pageSshOptionsProblem([...file, 'StrictHostKeyChecking=yes'])).toBeNull();
    expect(pageSshOptionsProblem(['StrictHostKeyChecking=yes', 'GlobalKnownHostsFile=/dev/null'])).toBeNull();
    expect(pageSshOptionsProblem([...file, 'StrictHostKeyChecking=accept-new'])).toBe(
      'SSH options: "UserKnownHostsFile=/k/known_hosts" needs StrictHostKeyChecking=yes beside it, so that ssh only reads that file.',
    );
    expect(pageSshOptionsProblem(['GlobalKnownHostsFile=/dev/null'])).toMatch(/^SSH options: "GlobalKnownHostsFile/);
    expect(pageSshOptionsProblem(['BatchMode=yes', 'UserKnownHostsFile=/k'])).toMatch(
      /needs StrictHostKeyChecking=yes/,
    );
    expect(pageSshOptionsProblem(['stricthostkeychecking=YES', 'UserKnownHostsFile=/k'])).toBeNull();
    expect(pageSshOptionsProblem(['UserKnownHostsFile=/k b', 'StrictHostKeyChecking=yes'])).toMatch(/not a value/);
  });

  it('names every option it takes, as ssh spells them', () => {
    expect(PAGE_SSH_OPTIONS).toEqual([
      ...['Port', 'User', 'IdentityFile', 'IdentitiesOnly', 'ConnectTimeout', 'ConnectionAttempts'],
      ...['ServerAliveInterval', 'ServerAliveCountMax', 'TCPKeepAlive', 'Compression', 'AddressFamily', 'BatchMode'],
      ...['StrictHostKeyChecking', 'UserKnownHostsFile', 'GlobalKnownHostsFile'],
    ]);
  });

  it('takes no options at all', () => {
    expect(pageSshOptionsProblem([])).toBeNull();
  });
});
