/**
 * The quality bench's questions about The Debian Administrator's Handbook (chapters 5 to 12 and
 * 14, see handbook.ts), each with the passage that answers it.
 *
 * How they were written: by reading the chapters' text as the indexer extracts it, one topic at a
 * time, and asking what an administrator would type into a help bot, in their own words, before
 * knowing how the book puts it. Nothing is copied from the text but the exact terms the `exact`
 * questions quote. Four kinds:
 *
 * - `paraphrase`: the problem described, not the book's words ("my wifi doesn't come back after
 *   suspend"); it shares few or no content words with the passage;
 * - `exact`: it quotes an exact term of the book: a command, an option, a path, a package, a
 *   configuration key (`vgextend`, `/etc/exports`, `virtual_alias_maps`);
 * - `misspelt`: it holds a typo in its key term, one a hurried user makes (`quotta`, `resolv.cnf`,
 *   `easyrsa`);
 * - `keyword`: a bare keyword or two, as typed into a search box.
 *
 * `answer` identifies the passage, not a page or a chunk: a hit is relevant when its text (runs of
 * white space made one space, as the chunker does) matches it, so a change of chunk size or of
 * page layout keeps the judgement. Each is a phrase of the passage distinctive enough to match one
 * to three chunks of the corpus (two where the chunker's overlap repeats it); alternatives
 * (`|`) name the other places that answer the question as well. The bench refuses to run when a
 * pattern matches no chunk (the corpus changed) and lists those matching more than 3.
 */

export type QuestionKind = 'paraphrase' | 'exact' | 'misspelt' | 'keyword';

export const QUESTION_KINDS: readonly QuestionKind[] = [
  'paraphrase',
  'exact',
  'misspelt',
  'keyword',
];

export interface Question {
  kind: QuestionKind;
  question: string;
  /** Matched against a hit's text with white space collapsed: the hit answers the question. */
  answer: RegExp;
}

export const QUESTIONS: readonly Question[] = [
  // Chapter 5: the packaging system, dpkg.
  {
    kind: 'paraphrase',
    question: 'I wiped the package installer binary by mistake, is the machine lost?',
    answer: /mistakenly deleted the dpkg program/i,
  },
  {
    kind: 'exact',
    question: 'what does --force-confold do during an upgrade?',
    answer: /--force-confold retains the old version/i,
  },
  {
    kind: 'paraphrase',
    question: 'how do I uninstall something and also get rid of its settings?',
    answer: /complete purge of the package|Purge, a complete removal/i,
  },
  {
    kind: 'exact',
    question: 'what gets written to /var/log/dpkg.log?',
    answer:
      /dpkg keeps a log of all of its actions in \/var\/log\/dpkg\.log|one can find the exact moment when each package has been installed/i,
  },
  {
    kind: 'exact',
    question: 'dpkg --add-architecture to install 32-bit libraries',
    answer:
      /This is simply done with dpkg --add-architecture|Using proprietary i386 binaries on amd64|Foreign packages can then be installed with apt install package:architecture/i,
  },
  {
    kind: 'paraphrase',
    question: 'can I put software made for Red Hat or Fedora on this machine?',
    answer: /alien utility can convert RPM packages/i,
  },
  {
    kind: 'keyword',
    question: 'recommends suggests',
    answer:
      /Recommends, Suggests, and Enhances fields|The .suggested. dependencies, of secondary importance/i,
  },
  {
    kind: 'misspelt',
    question: 'when does the postinstal script run?',
    answer:
      /preinst script is executed prior to installation of the package, while postinst follows it|executing the new-postinst script with the arguments configure/i,
  },
  {
    kind: 'paraphrase',
    question: 'there is a file on my disk and I want to know what installed it',
    answer:
      /--search file \(or -S\), which finds the package|a local file belongs to, use dpkg -S|find its corresponding package using the command, dpkg -S/i,
  },

  // Chapter 6: APT.
  {
    kind: 'keyword',
    question: 'main contrib non-free',
    answer:
      /The main, contrib and non-free archives|Contrib \(contributions\) is a set of open source software/i,
  },
  {
    kind: 'paraphrase',
    question:
      'dozens of our machines fetch the same updates from the internet; can one box on the LAN keep a copy for all of them?',
    answer:
      /intermediate proxy acting as a network-local cache|apt-cacher and apt-cacher-ng work like usual proxy/i,
  },
  {
    kind: 'misspelt',
    question: 'apt prefrences file priorities',
    answer:
      /You can modify the priorities by adding entries in a file in \/etc\/apt\/preferences\.d\//i,
  },
  {
    kind: 'paraphrase',
    question:
      'after removing a program, the libraries it dragged in are still there; how do I clean them up?',
    answer: /apt-get autoremove or apt autoremove will get rid of those packages/i,
  },
  {
    kind: 'misspelt',
    question: 'deborfan unused libraries',
    answer: /ALTERNATIVE deborphan and debfoster/i,
  },
  {
    kind: 'exact',
    question: 'how does apt-file search work?',
    answer: /the command apt-file search pattern will list all packages/i,
  },
  {
    kind: 'keyword',
    question: 'unattended upgrades',
    answer:
      /execute unattended-upgrade \(from the unattended-upgrades package\)|dpkg-reconfigure -plow unattended-/i,
  },
  {
    kind: 'paraphrase',
    question: 'before upgrading, can I see what the maintainers warn about in the new versions?',
    answer:
      /install the apt-listchanges package, which displays information about possible problems/i,
  },
  {
    kind: 'exact',
    question: 'does a third-party repository key go in /etc/apt/trusted.gpg.d?',
    answer:
      /put it in a \*\.gpg file in \/etc\/apt\/trusted\.gpg\.d\/|IN PRACTICE Adding trusted keys When a third-party package source|To restrict the key to the repository/i,
  },
  {
    kind: 'exact',
    question: 'what does apt-cache policy show?',
    answer:
      /The apt-cache policy command displays the pinning priorities|It can also show the pinning priorities for all available versions/i,
  },
  {
    kind: 'paraphrase',
    question: "we're moving to the next Debian release, what should I do before anything else?",
    answer: /you should read the release notes before upgrading/i,
  },
  {
    kind: 'exact',
    question: 'DEBIAN_FRONTEND=noninteractive upgrade script',
    answer: /export DEBIAN_FRONTEND=noninteractive/i,
  },
  {
    kind: 'paraphrase',
    question:
      "how can I browse the archive by category, say programs that edit films, when I don't know their names?",
    answer:
      /Selecting the works-with::video and use::editing tags|The search only returns one package, kino/i,
  },
  {
    kind: 'misspelt',
    question: 'axi-cahce search',
    answer: /axi-cache search term, on the other hand, provides better results/i,
  },

  // Chapter 7: solving problems.
  {
    kind: 'paraphrase',
    question: 'I forgot what the command is called; how do I look one up by what it does?',
    answer: /This is the purpose of the apropos command/i,
  },
  {
    kind: 'keyword',
    question: 'info documents',
    answer:
      /7\.1\.2\. info Documents The GNU project has written manuals|Note that the info system is not suitable for translation/i,
  },
  {
    kind: 'exact',
    question: 'what is in /usr/share/doc/package/README.Debian?',
    answer:
      /The README\.Debian file also indicates all of the adaptations|Reading \/usr\/share\/doc\/package\/README\.Debian will allow you/i,
  },
  {
    kind: 'paraphrase',
    question: "where can I ask other Debian people when I'm stuck?",
    answer: /This is exactly the purpose of the debian-user@lists\.debian\.org mailing list/i,
  },
  {
    kind: 'misspelt',
    question: 'how to file a problem with repotbug',
    answer: /send your own bug report, using the reportbug command/i,
  },

  // Chapter 8: basic configuration.
  {
    kind: 'paraphrase',
    question:
      'colleagues from abroad need their language on this server; how do I add more languages?',
    answer: /This set can be changed at any time by running dpkg-reconfigure locales/i,
  },
  {
    kind: 'misspelt',
    question: 'change keybord layuot in the console',
    answer: /dpkg-reconfigure keyboard-configuration command can be used at any time/i,
  },
  {
    kind: 'paraphrase',
    question: 'my laptop has to join the office WiFi with its key at boot, no desktop installed',
    answer: /wpa-ssid Falcot|the name of the wireless network \(aka its SSID\)/i,
  },
  {
    kind: 'keyword',
    question: 'ADSL PPPoE',
    answer: /The pppoeconf tool \(from the package with the same name\)/i,
  },
  {
    kind: 'exact',
    question: 'what does the hosts line in /etc/nsswitch.conf mean?',
    answer: /The entry that involves host name resolution is hosts/i,
  },
  {
    kind: 'misspelt',
    question: 'nameserver lines in resolv.cnf',
    answer: /in \/etc\/resolv\.conf, one per line, with the nameserver keyword/i,
  },
  {
    kind: 'paraphrase',
    question: 'I put my DNS servers in the config but something keeps replacing my changes',
    answer: /\/etc\/resolv\.conf file may be handled automatically \(and overwritten\)/i,
  },
  {
    kind: 'exact',
    question: 'what are the fields of /etc/shadow?',
    answer: /The \/etc\/shadow file contains the following fields/i,
  },
  {
    kind: 'paraphrase',
    question: 'can a user switch from bash to zsh on their own?',
    answer: /chsh \(CHange SHell\) allows the user to change their login shell/i,
  },
  {
    kind: 'paraphrase',
    question: 'an employee is away for months: block their access without deleting anything',
    answer: /This is accomplished by using the command passwd -l user \(lock\)/i,
  },
  {
    kind: 'paraphrase',
    question: 'every new colleague should get the same starter dotfiles in their home folder',
    answer: /populates the user's home directory with the contents of the \/etc\/skel\/ template/i,
  },
  {
    kind: 'keyword',
    question: 'printer cups',
    answer:
      /thanks to CUPS, the free print server|The heart of the system is the scheduler, cupsd|CUPS in combination with these packages is the basis for the Debian printing system/i,
  },
  {
    kind: 'paraphrase',
    question:
      'my edits to the boot menu file vanished after an update; where do kernel parameters belong?',
    answer:
      /made through the variables in \/etc\/default\/grub|local modifications will be lost the next time update-grub/i,
  },
  {
    kind: 'misspelt',
    question: 'how to chnage the tiemzone',
    answer: /use the dpkg-reconfigure tzdata command/i,
  },
  {
    kind: 'paraphrase',
    question: 'the clocks on our desktop PCs drift; how do I keep them right?',
    answer:
      /simply install the ntpdate package|For Workstations Since work stations are regularly rebooted/i,
  },
  {
    kind: 'keyword',
    question: 'logrotate',
    answer:
      /logrotate, the program responsible for these rotations|The logrotate program is executed daily by the cron/i,
  },
  {
    kind: 'paraphrase',
    question: 'let a colleague run admin commands without giving them the root password',
    answer:
      /allows a trusted user to execute any command as root|the administrator can use the visudo command/i,
  },
  {
    kind: 'misspelt',
    question: 'locate database updatdb',
    answer: /this database is updated daily by the updatedb command/i,
  },
  {
    kind: 'paraphrase',
    question: 'turn a customised Linux source tree into packages I can install',
    answer: /a simple make deb-pkg will generate up to 5 Debian packages/i,
  },
  {
    kind: 'paraphrase',
    question: 'allow ordinary users to mount a USB stick themselves',
    answer: /including the user option in the \/etc\/fstab file/i,
  },
  {
    kind: 'exact',
    question: 'get eth0 names back with net.ifnames=0',
    answer: /boot the system using the net\.ifnames=0/i,
  },

  // Chapter 9: Unix services.
  {
    kind: 'paraphrase',
    question:
      "my web daemon doesn't come back after the machine restarts; how do I turn it on for good?",
    answer: /use systemctl enable servicename\.service/i,
  },
  {
    kind: 'exact',
    question: 'journalctl -u for one service',
    answer: /journalctl -u ssh\.service/i,
  },
  {
    kind: 'paraphrase',
    question: 'I want to get into my server without typing the password every time',
    answer:
      /SSH offers a key-based authentication system|The user generates a key pair on the client machine|all subsequent logins on the server will work without a password/i,
  },
  {
    kind: 'paraphrase',
    question: 'run a graphical program on the server and see its window on my own screen',
    answer: /X11Forwarding yes in the server configuration file/i,
  },
  {
    kind: 'paraphrase',
    question:
      "a shared upload folder where everyone can write but nobody can delete other people's files",
    answer: /restricts deletion of files so that only their owner/i,
  },
  {
    kind: 'misspelt',
    question: 'setfacel permissions for one more user',
    answer: /permissions can be set using the setfacl\(1\) command/i,
  },
  {
    kind: 'keyword',
    question: 'umask',
    answer: /GOING FURTHER umask When an application creates a file/i,
  },
  {
    kind: 'keyword',
    question: 'webmin',
    answer:
      /Sadly, webmin is no longer part of Debian|one of the most successful administration interfaces|It is recommended to change the password used for webmin|This server listens by default on port 10000/i,
  },
  {
    kind: 'exact',
    question: 'syntax of /etc/rsyslog.conf',
    answer: /The syntax of the \/etc\/rsyslog\.conf file is detailed/i,
  },
  {
    kind: 'paraphrase',
    question: 'collect the logs of all our servers on one central machine',
    answer: /To accept log messages sent by other machines, you must reconfigure rsyslog/i,
  },
  {
    kind: 'keyword',
    question: 'inetd super-server',
    answer: /is a server of servers|Register a server in \/etc\/inetd\.conf/i,
  },
  {
    kind: 'paraphrase',
    question: 'run a script every Monday at 3 in the morning',
    answer: /Each significant line of a crontab entry describes a scheduled command/i,
  },
  {
    kind: 'exact',
    question: 'list and cancel jobs queued with at: atq, atrm',
    answer: /you can find it again with the atq command/i,
  },
  {
    kind: 'paraphrase',
    question: 'my laptop is off at night so the nightly maintenance never happens',
    answer: /anacron is the daemon that completes cron for computers that are not on at all times/i,
  },
  {
    kind: 'misspelt',
    question: 'disk quotta per user',
    answer: /The quota system allows limiting disk space allocated to a user/i,
  },
  {
    kind: 'exact',
    question: 'grace period with edquota -t',
    answer: /With the edquota -t command/i,
  },
  {
    kind: 'paraphrase',
    question: 'keep many daily copies of the file server without filling the backup disk',
    answer: /preceded by a duplication of the content of the previous backup with hard links/i,
  },
  {
    kind: 'paraphrase',
    question:
      'my external drive shows up as sdb one day and sdc the next; can it always get the same device path?',
    answer: /try to assign it a fixed name|\/etc\/udev\/rules\.d\/010_local\.rules/i,
  },
  {
    kind: 'paraphrase',
    question: "my wifi doesn't come back after suspend",
    answer: /properly suspending the computer requires that all the computer's device drivers/i,
  },

  // Chapter 10: network infrastructure.
  {
    kind: 'paraphrase',
    question:
      "share this box's internet connection with the office LAN: how do I make it pass packets along?",
    answer: /Turning a Debian system into a gateway is a simple matter/i,
  },
  {
    kind: 'paraphrase',
    question: 'I want the padlock in browsers for my site without paying a commercial authority',
    answer: /the certbot package brings everything we need to create our own trusted certificates/i,
  },
  {
    kind: 'exact',
    question: 'certbot renew --dry-run',
    answer: /you can execute certbot renew --dry-run/i,
  },
  {
    kind: 'misspelt',
    question: 'easyrsa own certificate authority',
    answer:
      /The easy-rsa package provides tools to serve as an X\.509 certification infrastructure|\.\/easyrsa build-ca/i,
  },
  {
    kind: 'keyword',
    question: 'openvpn tun tap',
    answer: /Its setup involves creating virtual network interfaces on the VPN server/i,
  },
  {
    kind: 'exact',
    question: 'what does PermitTunnel do in sshd_config?',
    answer: /The tunneling system must first be enabled by setting PermitTunnel/i,
  },
  {
    kind: 'paraphrase',
    question:
      'our encrypted site-to-site link breaks whenever the traffic crosses the address-translating router',
    answer: /NATing firewalls and IPsec do not work well together/i,
  },
  {
    kind: 'paraphrase',
    question: 'interactive sessions get laggy whenever someone downloads big files',
    answer: /is to minimize latencies independent of network load/i,
  },
  {
    kind: 'keyword',
    question: 'ospf bgp',
    answer:
      /each routing protocol \(most notably BGP, OSPF and RIP\)|IN PRACTICE OSPF, BGP or RIP\?/i,
  },
  {
    kind: 'exact',
    question: 'zone definitions in /etc/bind/named.conf.local',
    answer: /Excerpt of \/etc\/bind\/named\.conf\.local/i,
  },
  {
    kind: 'paraphrase',
    question: 'hand out IP addresses to the office PCs automatically',
    answer: /The matching Debian package is isc-dhcp-server/i,
  },
  {
    kind: 'paraphrase',
    question: 'which programs on this machine are waiting for connections, and on which ports?',
    answer: /netstat -tupan as a reflex/i,
  },
  {
    kind: 'misspelt',
    question: 'nmapp scan of a remote host',
    answer:
      /is, in a way, the remote equivalent for netstat|A typical nmap invocation only uses the -A option/i,
  },
  {
    kind: 'keyword',
    question: 'packet sniffer',
    answer: /more widely known as a sniffer/i,
  },

  // Chapter 11: network services.
  {
    kind: 'exact',
    question: 'virtual_alias_maps for a domain that only forwards mail',
    answer: /referencing an address mapping file in the virtual_alias_maps variable/i,
  },
  {
    kind: 'paraphrase',
    question: 'turn away mail from unknown senders the first time, so that spam robots give up',
    answer:
      /Postfix doesn't provide greylisting natively|The postgrey package contains just such a program/i,
  },
  {
    kind: 'keyword',
    question: 'mail antivirus',
    answer:
      /The Falcot administrators selected clamav from the homonymous package|important to set up an antivirus solution at the entry point/i,
  },
  {
    kind: 'misspelt',
    question: 'opendkm-genkey selector',
    answer: /private key must be created using the command opendkim-genkey/i,
  },
  {
    kind: 'paraphrase',
    question: 'staff on the road should send mail through our server after logging in',
    answer: /SMTP authentication in Postfix relies on SASL/i,
  },
  {
    kind: 'exact',
    question: 'a2ensite for a second website',
    answer: /enabling the virtual host with a2ensite/i,
  },
  {
    kind: 'paraphrase',
    question: 'reports on how many people visit our website and which pages they read',
    answer:
      /A log analyzer is frequently installed on a web server|selected AWStats \(Advanced Web Statistics\)/i,
  },
  {
    kind: 'exact',
    question: 'format of /etc/exports',
    answer: /The NFS server configuration file\(s\), \/etc\/exports and \/etc\/exports\.d\//i,
  },
  {
    kind: 'paraphrase',
    question: 'the Windows PCs in the office need to open folders kept on the Linux server',
    answer:
      /Samba is a suite of tools handling the SMB protocol|The samba package contains the main two servers of Samba 4/i,
  },
  {
    kind: 'exact',
    question: 'smbclient -L to see what a server shares',
    answer: /smbclient -L server lists all available/i,
  },
  {
    kind: 'misspelt',
    question: 'squidgard web filtering',
    answer:
      /this action is delegated to squidGuard|requires installing the additional squidguard package/i,
  },
  {
    kind: 'keyword',
    question: 'openldap server',
    answer: /The slapd package contains the OpenLDAP server/i,
  },
  {
    kind: 'paraphrase',
    question: 'video calls fail when both people are at home behind their routers',
    answer: /TURN is a service that helps clients behind NAT routers/i,
  },
  {
    kind: 'misspelt',
    question: 'jabber server prosdy config',
    answer: /prosody is a popular XMPP server/i,
  },

  // Chapter 12: advanced administration.
  {
    kind: 'exact',
    question: 'what does /proc/mdstat show?',
    answer: /The \/proc\/mdstat file lists existing volumes/i,
  },
  {
    kind: 'paraphrase',
    question:
      'if one hard drive dies I must not lose anything: keep everything on two disks at once',
    answer: /also known as .RAID mirroring.|hence the .mirror. nickname/i,
  },
  {
    kind: 'paraphrase',
    question: 'our disks are mirrored, so do we still need to keep copies elsewhere?',
    answer: /RAID systems are not backup mechanisms/i,
  },
  {
    kind: 'exact',
    question: 'add a disk to a volume group with vgextend',
    answer: /This is the purpose of the vgextend command/i,
  },
  {
    kind: 'paraphrase',
    question:
      'the partition holding our file share is almost full; can I make it bigger without reinstalling?',
    answer: /we'll use the lvresize command, then resize2fs/i,
  },
  {
    kind: 'misspelt',
    question: 'pvcraete a physical volume',
    answer: /First, we prepare the physical volumes using pvcreate/i,
  },
  {
    kind: 'exact',
    question: 'simulate a broken disk with mdadm --fail',
    answer: /allows simulating such a disk failure/i,
  },
  {
    kind: 'keyword',
    question: 'xen dom0',
    answer:
      /is known as dom0, and has a special role|the dom0 matches the .host. of other virtualization systems/i,
  },
  {
    kind: 'paraphrase',
    question: 'lightweight isolation that shares the host kernel instead of a full virtual machine',
    answer: /LXC is not, strictly speaking, a virtualization system|there is no second kernel/i,
  },
  {
    kind: 'exact',
    question: 'create a VM from the command line with virt-install',
    answer:
      /The virtinst package provides virt-install|Installation with virt-install Creating a virtual machine|This command registers the virtual machine and its parameters in libvirtd/i,
  },
  {
    kind: 'paraphrase',
    question: 'install fifty identical desktops without clicking through the installer on each one',
    answer: /the standard Debian installer can be preseeded with a configuration file/i,
  },
  {
    kind: 'misspelt',
    question: 'munnin node port',
    answer:
      /install the munin-node package\. The daemon installed by this package listens on port 4949/i,
  },
  {
    kind: 'keyword',
    question: 'nagios alerts',
    answer: /Nagios covers the second area, by regularly checking that the services are working/i,
  },

  // Chapter 14: security.
  {
    kind: 'exact',
    question: 'convert old rules with iptables-translate',
    answer: /The iptables-translate and ip6tables-translate commands can be used/i,
  },
  {
    kind: 'exact',
    question: 'are firewall rules saved in /etc/nftables.conf?',
    answer:
      /The firewall rules are located in \/etc\/nftables\.conf|store the rules in \/etc\/nftables\.conf/i,
  },
  {
    kind: 'paraphrase',
    question: "I'd like an email whenever something odd shows up in the system's records",
    answer: /It sends unusual log messages in emails to the administrator/i,
  },
  {
    kind: 'paraphrase',
    question: "how would I notice if someone tampered with the system's programs?",
    answer:
      /allows checking file integrity, and detecting any change|This section presents a few tools able to monitor files and to warn/i,
  },
  {
    kind: 'keyword',
    question: 'network intrusion detection',
    answer: /is an NIDS . a Network Intrusion Detection System/i,
  },
  {
    kind: 'misspelt',
    question: 'aparmor enforce mode for a profile',
    answer:
      /switched between enforcing and complaining with calls to aa-enforce|Each profile can be loaded either in enforcing or complaining mode|# aa-enforce \/usr\/bin\/pidgin/i,
  },
  {
    kind: 'exact',
    question: 'semanage login -l output',
    answer: /semanage login -l lists the current mapping/i,
  },
  {
    kind: 'paraphrase',
    question: 'someone keeps hammering my ssh port trying thousands of passwords',
    answer:
      /The best way to stop a brute-force attack is to limit the number of login attempts|monitor any service that writes login attempts to a log file/i,
  },
  {
    kind: 'paraphrase',
    question: 'I think our server got broken into; what do I do first?',
    answer: /the cracking comes from the network/i,
  },
  {
    kind: 'paraphrase',
    question: 'could a visitor just walk off with our disks?',
    answer:
      /There is no point in securing the services and networks if the computers themselves are not protected|room and run away with a few selected hard disks/i,
  },
  {
    kind: 'paraphrase',
    question: 'the intruder erased the logs; can anything be recovered from the disk image?',
    answer: /allow restoring the contents of potentially deleted files/i,
  },
];
